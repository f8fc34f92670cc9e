import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRoundRobinProxy, listen, type RoundRobinProxy } from "@/scripts/cluster";
import { cluster, skipped } from "./harness";

/**
 * The round-robin proxy of `npm run start:cluster` (scripts/cluster.ts), against small echo
 * servers: requests taken in turn, Host kept, the client appended to X-Forwarded-For, bodies
 * streamed both ways, an instance that refuses connections skipped, one whose /readyz fails
 * sent nothing, Next's internal headers kept
 * away from /v1. Then once through the real cluster.
 */
type Echo = { name: string; port: number; server: http.Server };

const startEcho = async (name: string, readyzStatus = 200): Promise<Echo> => {
  const server = http.createServer((request, response) => {
    if (request.url === "/readyz") {
      response.writeHead(readyzStatus).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      response.writeHead(200, { "Content-Type": "application/json", "X-Upstream": name });
      response.end(JSON.stringify({ name, method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
  });
  await listen(server, 0);
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("echo server has no port");
  return { name, port: address.port, server };
};

/** A port nothing listens on (taken, then given back). */
const refusingPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (address !== null && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))));
    });
  });

type Echoed = { name: string; method: string; url: string; headers: Record<string, string>; body: string };

/** node:http rather than fetch: fetch may not set Host. */
const through = (
  proxyPort: number,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; echoed: Echoed }> =>
  new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port: proxyPort, path, method: init.method ?? "GET", headers: init.headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, echoed: JSON.parse(text) as Echoed }));
    });
    request.on("error", reject);
    request.end(init.body);
  });

describe.skipIf(skipped())("the round-robin proxy of start:cluster", () => {
  const echoes: Echo[] = [];
  let proxy: RoundRobinProxy;
  let proxyPort = 0;

  beforeAll(async () => {
    echoes.push(await startEcho("a"), await startEcho("b"));
    const dead = await refusingPort();
    proxy = createRoundRobinProxy([
      { host: "127.0.0.1", port: echoes[0]?.port ?? 0 },
      { host: "127.0.0.1", port: dead },
      { host: "127.0.0.1", port: echoes[1]?.port ?? 0 },
    ]);
    await listen(proxy.server, 0);
    const address = proxy.server.address();
    proxyPort = address !== null && typeof address === "object" ? address.port : 0;
  });
  afterAll(async () => {
    await proxy.close();
    for (const echo of echoes) echo.server.close();
  });

  it("takes the instances in turn and skips the one that refuses connections", async () => {
    const names: string[] = [];
    for (let round = 0; round < 6; round += 1) names.push((await through(proxyPort, "/api/ping")).echoed.name);
    // a, (dead → b), b, a, (dead → b), b
    expect(names).toEqual(["a", "b", "b", "a", "b", "b"]);
    expect(proxy.failures()).toBe(0);
  });

  it("keeps Host, appends the client to X-Forwarded-For and streams bodies", async () => {
    const { echoed } = await through(proxyPort, "/api/keys?x=1", {
      method: "POST",
      headers: { Host: "lookup.example", "X-Forwarded-For": "203.0.113.7", "Content-Type": "application/json" },
      body: JSON.stringify({ name: "k" }),
    });
    expect(echoed.method).toBe("POST");
    expect(echoed.url).toBe("/api/keys?x=1");
    expect(echoed.headers.host).toBe("lookup.example");
    expect(echoed.headers["x-forwarded-for"]).toBe("203.0.113.7, 127.0.0.1");
    expect(echoed.body).toBe('{"name":"k"}');
  });

  it("drops Next's internal request headers on /v1 (and the middleware-bypass header everywhere)", async () => {
    const internal = { RSC: "1", "X-Middleware-Prefetch": "1", "Next-Router-State-Tree": "x", "X-Middleware-Subrequest": "middleware" };
    const api = (await through(proxyPort, "/v1/pinsite/followers?userid=1", { headers: internal })).echoed.headers;
    expect([api.rsc, api["x-middleware-prefetch"], api["next-router-state-tree"], api["x-middleware-subrequest"]]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const page = (await through(proxyPort, "/events", { headers: internal })).echoed.headers;
    expect([page.rsc, page["x-middleware-subrequest"]]).toEqual(["1", undefined]);
  });

  it("with readiness probing, sends nothing to an instance whose /readyz answers 503 while another is ready", async () => {
    const ready = await startEcho("ready");
    const draining = await startEcho("draining", 503);
    const probing = createRoundRobinProxy(
      [
        { host: "127.0.0.1", port: draining.port },
        { host: "127.0.0.1", port: ready.port },
      ],
      { readiness: { path: "/readyz", intervalMs: 50, timeoutMs: 500 } },
    );
    await listen(probing.server, 0);
    const address = probing.server.address();
    const port = address !== null && typeof address === "object" ? address.port : 0;
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(probing.ready()).toEqual([false, true]);
      const names: string[] = [];
      for (let round = 0; round < 4; round += 1) names.push((await through(port, "/v1/pinsite/followers")).echoed.name);
      expect(names).toEqual(["ready", "ready", "ready", "ready"]);
    } finally {
      await probing.close();
      ready.server.close();
      draining.server.close();
    }
  });

  it("serves the cluster: /v1 answers the envelope even with RSC: 1", async () => {
    const response = await fetch(`${cluster().proxyUrl}/v1/pinsite/followers?userid=2000000002`, { headers: { RSC: "1" }, redirect: "manual" });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 401, message: "apiKey is null", data: null });
  });
});
