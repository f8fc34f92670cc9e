import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signalGroup } from "@/lib/cli/processes";
import { embeddedInRun, createKeyWithCli, delay, freePort, serverExit, serverPid, type ApiTarget, type IssuedKey } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * GET /livez and /readyz (docs/monitoring.md "Probes and shutdown") on the suite's servers, on a
 * server whose Redis cannot be reached, and through a SIGTERM: not ready at once while /v1 is
 * still served for the drain delay, then no new connection, the request in flight answered,
 * exit 0. Anyone gets /readyz's status and the names of failing checks; each check's detail
 * only with METRICS_TOKEN, or on the metrics listener.
 */
const targets = inject("apiTargets");

type ReadyBody = { status: string; failing: string[]; checks?: Record<string, { ok: boolean; detail: string }> };

const probe = async (target: ApiTarget, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${target.baseUrl}${path}`, { ...init, redirect: "manual", signal: AbortSignal.timeout(5000) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === "" ? null : (JSON.parse(text) as unknown) };
};

const CHECKS = ["migrations", "database", "embedded_worker", "redis", "draining"];

describe.each(targets)("$kind server", (target: ApiTarget) => {
  describe("GET /livez", () => {
    it("answers 200 {status: ok}, JSON, never cached", async () => {
      const answer = await probe(target, "/livez");
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: "ok" });
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    });

    it("answers HEAD with 200 and no body", async () => {
      const answer = await probe(target, "/livez", { method: "HEAD" });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe("");
    });
  });

  describe("GET /readyz", () => {
    it("answers anyone 200 with the status and no failing check, and no check's detail", async () => {
      const answer = await probe(target, "/readyz");
      expect(answer.status).toBe(200);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(answer.body).toEqual({ status: "ok", failing: [] });
      expect(answer.text).not.toMatch(/applied|answered in|not configured|alive/);
    });

    it("adds every check saying what it saw for METRICS_TOKEN sent as a Bearer token", async () => {
      const answer = await probe(target, "/readyz", { headers: { Authorization: `Bearer ${target.env.METRICS_TOKEN ?? ""}` } });
      expect(answer.status).toBe(200);
      const body = answer.body as ReadyBody;
      expect(body.status).toBe("ok");
      expect(body.failing).toEqual([]);
      const checks = body.checks ?? {};
      expect(Object.keys(checks)).toEqual(CHECKS);
      expect(Object.values(checks).every((check) => check.ok)).toBe(true);
      expect(checks.migrations?.detail).toMatch(/^\d+ applied$/);
      expect(checks.database?.detail).toMatch(/^answered in \d+ ms$/);
      expect(checks.embedded_worker?.detail).toBe(target.kind === "pglite" ? "alive" : "absent (PostgreSQL)");
      expect(checks.redis?.detail).toBe("not configured");
      expect(checks.draining?.detail).toBe("serving");
    });

    it("is answered outside any sign-in: a bad token or session cookie changes nothing and shows no detail", async () => {
      const answer = await probe(target, "/readyz", { headers: { Authorization: "Bearer sl_nonsense", Cookie: "next-auth.session-token=forged" } });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: "ok", failing: [] });
    });

    it("answers HEAD with the same status and no body, and refuses POST with 405", async () => {
      const head = await probe(target, "/readyz", { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
      const post = await probe(target, "/readyz", { method: "POST", body: "{}" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
    });
  });
});

describe.runIf(embeddedInRun)("a server whose Redis cannot be reached", () => {
  let target: ApiTarget | undefined;
  const password = "probe-redis-password";
  let redisPort = 0;
  let metricsPort = 0;

  beforeAll(async () => {
    // A port nothing listens on: every connection to it is refused.
    redisPort = await freePort();
    metricsPort = await freePort();
    target = await startOwnServer({
      label: "probes-redis",
      env: { REDIS_URL: `redis://:${password}@127.0.0.1:${redisPort}`, METRICS_PORT: String(metricsPort) },
    });
  }, 180_000);
  afterAll(() => stopOwnServer(target));

  it("answers /readyz 503 naming redis, and no more than its name, on the main port (no METRICS_TOKEN set)", async () => {
    if (!target) throw new Error("no server");
    const answer = await probe(target, "/readyz");
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ status: "unavailable", failing: ["redis"] });
    const guessed = await probe(target, "/readyz", { headers: { Authorization: "Bearer anything" } });
    expect(guessed.body).toEqual({ status: "unavailable", failing: ["redis"] });
  });

  it("answers /readyz with each check's detail on the metrics listener, with no URL or password in it", async () => {
    if (!target) throw new Error("no server");
    const answer = await probe({ ...target, baseUrl: `http://127.0.0.1:${metricsPort}` }, "/readyz");
    expect(answer.status).toBe(503);
    const body = answer.body as ReadyBody;
    expect(body).toMatchObject({ status: "unavailable", failing: ["redis"] });
    expect(body.checks?.redis).toEqual({ ok: false, detail: "unreachable" });
    expect(body.checks?.database?.ok).toBe(true);
    expect(answer.text).not.toContain(password);
    expect(answer.text).not.toContain(String(redisPort));
    expect((await probe({ ...target, baseUrl: `http://127.0.0.1:${metricsPort}` }, "/livez")).status).toBe(200);
  });

  it("is still live: /livez answers 200", async () => {
    if (!target) throw new Error("no server");
    expect((await probe(target, "/livez")).status).toBe(200);
  });
});

/** The status line and headers of the answer read from a raw connection until it closes. */
const readAnswer = (socket: net.Socket): Promise<{ status: number; head: string }> =>
  new Promise((resolve, reject) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const head = text.split("\r\n\r\n")[0] ?? "";
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head });
    });
  });

/** Whether a new connection is refused (the listener is closed). */
const refused = async (target: ApiTarget): Promise<boolean> => {
  try {
    await fetch(`${target.baseUrl}/livez`, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return cause?.code === "ECONNREFUSED";
  }
};

describe.runIf(embeddedInRun)("SIGTERM with a drain delay", () => {
  const DRAIN_DELAY_MS = 2500;
  let target: ApiTarget | undefined;
  let key: IssuedKey;

  beforeAll(async () => {
    target = await startOwnServer({
      label: "probes-sigterm",
      env: { SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS), SHUTDOWN_TIMEOUT_S: "20" },
      beforeStart: async (server) => {
        key = await createKeyWithCli(server, "probes-sigterm", { credits: 1000, qps: 100 });
      },
    });
  }, 180_000);
  afterAll(() => stopOwnServer(target));

  it("turns not-ready at once, serves /v1 through the delay, answers the request in flight, then exits 0", async () => {
    if (!target) throw new Error("no server");
    const pid = serverPid(target);
    const exit = pid === null ? undefined : serverExit(pid);
    if (pid === null || exit === undefined) throw new Error("the server's process is unknown");

    // A request in flight: its head and half its body sent; the front waits for the rest.
    const body = JSON.stringify({ operation: "no_such_operation", inputs: [] });
    const slow = net.connect(target.port, "127.0.0.1");
    await new Promise((resolve) => slow.once("connect", resolve));
    const answered = readAnswer(slow);
    slow.write(
      `POST /v1/batches HTTP/1.1\r\nHost: 127.0.0.1:${target.port}\r\nAuthorization: Bearer ${key.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await delay(300);

    const signalledAt = performance.now();
    signalGroup(pid, "SIGTERM");
    let notReady: { status: number; body: unknown } | null = null;
    while (performance.now() - signalledAt < DRAIN_DELAY_MS - 500) {
      const answer = await probe(target, "/readyz");
      if (answer.status === 503) {
        notReady = answer;
        break;
      }
      await delay(50);
    }
    expect(notReady?.body).toEqual({ status: "unavailable", failing: ["draining"] });

    // Still served while balancers take note, each answer closing its connection.
    const lookup = await fetch(`${target.baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${key.token}` } });
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get("connection")).toBe("close");
    await lookup.arrayBuffer();
    expect(performance.now() - signalledAt).toBeLessThan(DRAIN_DELAY_MS);

    // Then no new connection, not before the delay is over.
    while (!(await refused(target))) {
      expect(performance.now() - signalledAt).toBeLessThan(DRAIN_DELAY_MS + 5000);
      await delay(50);
    }
    expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(DRAIN_DELAY_MS - 100);

    // The request in flight gets its answer (its body names no operation: a 400), then its connection closes.
    slow.write(body.slice(10));
    const answer = await answered;
    expect(answer.status).toBe(400);
    expect(answer.head.toLowerCase()).toContain("connection: close");

    expect(await exit).toEqual({ code: 0, signal: null });
  }, 60_000);
});
