import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Readiness } from "@/lib/readiness";
import { answerProbe, detailsWithToken, isProbePath, LIVEZ_PATH, READYZ_PATH } from "./probes";
import { PROBE_PATHS } from "./request-facts";

/** The probes' answers over HTTP, with a readiness the test sets (the real checks: tests/api/probes.test.ts). */
const TOKEN = "probe-details-token";
let state: Readiness = { ready: true, checks: [] };
let readinessCalls = 0;
let server: http.Server;
let baseUrl = "";

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? "/", "http://x").pathname;
    void answerProbe(request, response, pathname, {
      readiness: async () => {
        readinessCalls += 1;
        return state;
      },
      showDetails: detailsWithToken(TOKEN),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  baseUrl = address !== null && typeof address === "object" ? `http://127.0.0.1:${address.port}` : "";
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ok = (name: Readiness["checks"][number]["name"]) => ({ name, ok: true, detail: "fine", configured: true });

describe("GET /livez", () => {
  it("answers 200 {status: ok} without asking readiness, never cached", async () => {
    readinessCalls = 0;
    const response = await fetch(`${baseUrl}/livez`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual({ status: "ok" });
    expect(readinessCalls).toBe(0);
  });
});

describe("GET /readyz", () => {
  it("answers 200 with the status alone when all pass: no check's detail for a caller without the token", async () => {
    state = { ready: true, checks: [ok("database"), ok("draining")] };
    const response = await fetch(`${baseUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", failing: [] });
    const wrong = await fetch(`${baseUrl}/readyz`, { headers: { Authorization: `Bearer ${TOKEN}x` } });
    expect(await wrong.json()).toEqual({ status: "ok", failing: [] });
  });

  it("adds every check with its detail for the monitoring token", async () => {
    state = { ready: true, checks: [ok("database"), ok("draining")] };
    const response = await fetch(`${baseUrl}/readyz`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ok",
      failing: [],
      checks: { database: { ok: true, detail: "fine" }, draining: { ok: true, detail: "fine" } },
    });
  });

  it("answers 503 naming the failing checks", async () => {
    state = { ready: false, checks: [ok("database"), { name: "redis", ok: false, detail: "unreachable", configured: true }, { name: "draining", ok: false, detail: "stopping", configured: true }] };
    const response = await fetch(`${baseUrl}/readyz`);
    expect(response.status).toBe(503);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "unavailable", failing: ["redis", "draining"] });
  });

  it("answers HEAD with the same status and no body", async () => {
    state = { ready: false, checks: [{ name: "draining", ok: false, detail: "stopping", configured: true }] };
    const response = await fetch(`${baseUrl}/readyz`, { method: "HEAD" });
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("content-length"))).toBeGreaterThan(0);
    expect(await response.text()).toBe("");
  });

  it("refuses other methods with 405 and Allow", async () => {
    const response = await fetch(`${baseUrl}/readyz`, { method: "POST", body: "x" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("detailsWithToken", () => {
  it("shows details to nobody without a token configured", () => {
    expect(detailsWithToken(undefined)).toBeUndefined();
  });
});

describe("isProbePath", () => {
  it("knows exactly the paths the request facts file under the probe area", () => {
    expect([LIVEZ_PATH, READYZ_PATH]).toEqual(PROBE_PATHS);
    expect(PROBE_PATHS.every(isProbePath)).toBe(true);
    expect(["/readyz/", "/livez.json", "/api/health", "/"].some(isProbePath)).toBe(false);
  });
});
