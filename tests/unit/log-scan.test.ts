import { describe, expect, it } from "vitest";
import { demoRecordTexts, scanServerLog, type LogScanOptions } from "@/tests/support/log-scan";

const TOKEN = "sl_test_0123456789.abcdefghij.SIGNATURE_abcdefghijklmnop";
const options: LogScanOptions = {
  secrets: [["token of key contract", TOKEN], ["token signature of key contract", "SIGNATURE_abcdefghijklmnop"], ["ADMIN_PASSWORD", "admin-password-0123"]],
  recordTexts: ["Berlin JS Meetup #112: Edge Runtimes in Practice", "José Muñoz"],
  expectRequestLines: true,
};

const requestLine = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    level: "info",
    time: "2026-12-02T00:00:00.000Z",
    instance: "box:3000",
    requestId: "r-1",
    channel: "api",
    operation: "followers",
    status: 200,
    latencyMs: 3.1,
    keyId: "key_1",
    method: "GET",
    path: "/v1/pinsite/followers",
    msg: "request",
    ...fields,
  });

const clean = [
  "# pglite server log of API test run x",
  "",
  "==== 2026-12-02T00:00:00.000Z start-script on port 3000",
  "Building the application (first start or sources changed)…",
  "Loaded the demo data set into the empty database.",
  JSON.stringify({ level: "info", time: "2026-12-02T00:00:00.000Z", instance: "box:3000", url: "http://localhost:3000", msg: "Ready on http://localhost:3000 (production)" }),
  "",
  "Social Lookup is ready at http://127.0.0.1:3000",
  "  Console: http://127.0.0.1:3000/signin",
  "  Sign in as api-suite@example.test with ADMIN_PASSWORD.",
  requestLine(),
  "",
].join("\n");

describe("the server log scan", () => {
  it("passes a clean log and returns its request lines", () => {
    const result = scanServerLog(clean, options);
    expect(result.problems).toEqual([]);
    expect(result.requestLines).toHaveLength(1);
  });

  it("fails on a token, its signature alone, a password or a Bearer value, naming the secret and not printing it", () => {
    const leaked = scanServerLog(`${clean}${JSON.stringify({ level: "warn", time: "2026-12-02T00:00:00.000Z", msg: `header was Bearer ${TOKEN}` })}\n`, options);
    expect(leaked.problems).toEqual(expect.arrayContaining(["token of key contract appears in the log", "token signature of key contract appears in the log"]));
    expect(leaked.problems.some((problem) => problem.startsWith("a Bearer value"))).toBe(true);
    expect(leaked.problems.join(" ")).not.toContain(TOKEN);
    expect(scanServerLog(`${clean}${requestLine({ path: "/x", note: "admin-password-0123" })}\n`, options).problems).toEqual(["ADMIN_PASSWORD appears in the log"]);
    expect(scanServerLog(`${clean}${requestLine({ keyId: "SIGNATURE_abcdefghijklmnop" })}\n`, options).problems).toEqual(["token signature of key contract appears in the log"]);
    expect(scanServerLog(`${clean}${requestLine({ authorization: "Bearer [redacted]" })}\n`, options).problems).toEqual([]);
  });

  it("fails on a personal record's text", () => {
    const result = scanServerLog(`${clean}${JSON.stringify({ level: "error", time: "2026-12-02T00:00:00.000Z", msg: "render failed: José Muñoz" })}\n`, options);
    expect(result.problems).toEqual(['record text "José Muñoz" appears in the log']);
  });

  it("fails on a line of the server that is not a JSON log line, or lacks level, time or msg", () => {
    expect(scanServerLog(`${clean}Error: boom\n    at render (app.js:1:1)\n`, options).problems).toEqual(["line 12 is not a JSON log line", "line 13 is not a JSON log line"]);
    expect(scanServerLog(`${clean}{"time":"2026-12-02T00:00:00.000Z","msg":"x"}\n`, options).problems).toEqual(["line 12 has no level of debug, info, warn, error"]);
    expect(scanServerLog(`${clean}{"level":50,"time":1,"message":"x"}\n`, options).problems).toEqual([
      "line 12 has no level of debug, info, warn, error",
      "line 12 has no time",
      "line 12 has no msg",
    ]);
  });

  it("fails on request lines without the request log's fields, with a query string, or on none at all", () => {
    const { problems } = scanServerLog(`${clean}${JSON.stringify({ level: "info", time: "2026-12-02T00:00:00.000Z", msg: "request", channel: "api", status: 200, latencyMs: 1, path: "/v1/x?userid=1" })}\n`, options);
    expect(problems).toEqual(["line 12, a request line, lacks requestId, operation, keyId, method, instance", "line 12, a request line, carries a query string"]);
    const withoutRequests = clean.split("\n").filter((line) => !line.includes('"msg":"request"')).join("\n");
    expect(scanServerLog(withoutRequests, options).problems).toEqual(["no request line in the log"]);
  });

  it("knows the demo data's names and titles", () => {
    const texts = demoRecordTexts("http://127.0.0.1:3000");
    expect(texts).toEqual(expect.arrayContaining(["Berlin JS Meetup #112: Edge Runtimes in Practice", "José Muñoz", "The Hidden Costs of Rate Limiting"]));
    expect(texts.every((text) => text.length >= 10)).toBe(true);
  });
});
