import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnswerTracker, shutDown, type ShutdownPlan } from "./shutdown";

/**
 * The stop sequence against real node:http servers and raw client sockets: what a balancer sees
 * at each step (answers while draining, Connection: close, refused connections afterwards), and
 * that a request in flight is answered before the database closes.
 */
type Served = { server: http.Server; port: number; answers: ReturnType<typeof createAnswerTracker>; release: () => void };

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections();
});

/** "/slow" waits until release(); anything else answers at once. */
const serve = async (): Promise<Served> => {
  const answers = createAnswerTracker();
  const waiting: (() => void)[] = [];
  const server = http.createServer((request, response) => {
    answers.track(response);
    const answer = () => {
      response.writeHead(200, { "Content-Type": "text/plain", "Content-Length": "2" });
      response.end("ok");
    };
    if (request.url === "/slow") waiting.push(answer);
    else answer();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port, answers, release: () => waiting.splice(0).forEach((answer) => answer()) };
};

/** One request on a connection of its own; the answer's status and Connection header, or the error code. */
const get = (port: number, path: string, agent: http.Agent | false = false): Promise<{ status: number; connection: string | undefined } | { error: string }> =>
  new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path, agent }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });

const plan = (served: Served, overrides: Partial<ShutdownPlan> = {}): ShutdownPlan & { events: string[] } => {
  const events: string[] = [];
  return {
    events,
    drainDelayMs: 0,
    timeoutMs: 5000,
    listeners: [served.server],
    answers: served.answers,
    startDraining: () => events.push("draining"),
    stopBackgroundJobs: async () => {
      events.push("jobs stopped");
    },
    drainSettler: async () => {
      events.push("settler drained");
    },
    closeDatabase: async () => {
      events.push("database closed");
    },
    ...overrides,
  };
};

describe("shutDown", () => {
  it("keeps serving through the drain delay, each answer closing its connection, then refuses new connections", async () => {
    const served = await serve();
    const steps = plan(served, { drainDelayMs: 400 });
    const stopping = shutDown(steps);
    expect(steps.events).toEqual(["draining"]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await get(served.port, "/")).toEqual({ status: 200, connection: "close" });
    expect(await stopping).toBe("clean");
    expect(await get(served.port, "/")).toEqual({ error: "ECONNREFUSED" });
    expect(steps.events).toEqual(["draining", "jobs stopped", "settler drained", "database closed"]);
  });

  it("answers a request in flight before the settler drains and the database closes", async () => {
    const served = await serve();
    const steps = plan(served);
    const slow = get(served.port, "/slow");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = shutDown(steps);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(steps.events).toEqual(["draining", "jobs stopped"]);
    served.release();
    // Begun before the stop, answered after it: the connection is told to close.
    expect(await slow).toEqual({ status: 200, connection: "close" });
    expect(await stopping).toBe("clean");
    expect(steps.events.slice(-2)).toEqual(["settler drained", "database closed"]);
  });

  it("closes a pooled keep-alive connection that sits idle, so close() completes", async () => {
    const served = await serve();
    const agent = new http.Agent({ keepAlive: true });
    expect(await get(served.port, "/", agent)).toEqual({ status: 200, connection: "keep-alive" });
    const started = performance.now();
    expect(await shutDown(plan(served))).toBe("clean");
    expect(performance.now() - started).toBeLessThan(1000);
    agent.destroy();
  });

  it("cuts what is still open after SHUTDOWN_TIMEOUT_S and says so (forced)", async () => {
    const served = await serve();
    const socket = net.connect(served.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    const cut = new Promise((resolve) => socket.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const steps = plan(served, { timeoutMs: 300 });
    expect(await shutDown(steps)).toBe("forced");
    await cut;
    // The last steps still run: charges queued are written, the database closed.
    expect(steps.events.slice(-2)).toEqual(["settler drained", "database closed"]);
  });

  it("is forced when the background jobs do not stop in time", async () => {
    const served = await serve();
    const steps = plan(served, { timeoutMs: 200, stopBackgroundJobs: () => new Promise<void>(() => undefined) });
    expect(await shutDown(steps)).toBe("forced");
  });
});
