import { describe, expect, it } from "vitest";
import { createLogger, logOver } from "@/lib/log";
import type { RequestFacts } from "./request-facts";
import { recordedPath } from "./request-facts";
import { requestLogObserver } from "./request-log";

const observe = (facts: Partial<RequestFacts>, level: "debug" | "info" = "info") => {
  const lines: string[] = [];
  const logger = createLogger({ level, format: "json", instance: "box:3000", sink: { write: (line) => lines.push(line) } });
  requestLogObserver(logOver(() => logger))({
    area: "v1",
    method: "GET",
    pathname: "/v1/pinsite/followers",
    status: 200,
    latencyMs: 12.345,
    requestId: "5f1c7c1e-0000-4000-8000-000000000001",
    keyId: "key_abc",
    operation: "followers",
    ...facts,
  });
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
};

describe("the request log", () => {
  it("writes one line per /v1 request with its request id, channel api, operation, status, latency, key id, method and path", () => {
    const lines = observe({});
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "info",
      msg: "request",
      instance: "box:3000",
      requestId: "5f1c7c1e-0000-4000-8000-000000000001",
      channel: "api",
      operation: "followers",
      status: 200,
      latencyMs: 12.3,
      keyId: "key_abc",
      method: "GET",
      path: "/v1/pinsite/followers",
    });
  });

  it("names the channel of each area: mcp, console, probe, metrics", () => {
    expect(observe({ area: "mcp", pathname: "/mcp", method: "POST" }, "debug")[0]?.channel).toBe("mcp");
    expect(observe({ area: "console", pathname: "/usage" })[0]?.channel).toBe("console");
    expect(observe({ area: "probe", pathname: "/readyz" }, "debug")[0]?.channel).toBe("probe");
    expect(observe({ area: "metrics", pathname: "/metrics" }, "debug")[0]?.channel).toBe("metrics");
  });

  it("logs probes, metrics scrapes and static files at debug: absent at the default level", () => {
    expect(observe({ area: "probe", pathname: "/livez" })).toEqual([]);
    expect(observe({ area: "metrics", pathname: "/metrics" })).toEqual([]);
    expect(observe({ area: "console", pathname: "/_next/static/chunks/app.js" })).toEqual([]);
    expect(observe({ area: "console", pathname: "/api/health" })).toEqual([]);
    expect(observe({ area: "probe", pathname: "/readyz", status: 503 }, "debug")[0]?.level).toBe("debug");
  });

  it("logs a 5xx at warn", () => {
    expect(observe({ status: 500 })[0]?.level).toBe("warn");
    expect(observe({ status: 499 })[0]?.level).toBe("info");
  });

  it("keeps an admin's looked-up subject and overlong paths out of the path", () => {
    expect(recordedPath("/api/admin/subjects/profile/urn:li:member:3000000001")).toBe("/api/admin/subjects/profile/:subject");
    expect(recordedPath("/api/admin/subjects/profile")).toBe("/api/admin/subjects/profile");
    const long = recordedPath(`/v1/${"a".repeat(5000)}`);
    expect(long.length).toBeLessThanOrEqual(513);
  });
});
