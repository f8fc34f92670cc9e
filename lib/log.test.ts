import { describe, expect, it } from "vitest";
import { createLogger, instanceName, logOver, resolveFormat, routeConsoleToLog, type LoggerSettings } from "@/lib/log";

const capture = (settings: Partial<LoggerSettings> = {}) => {
  const lines: string[] = [];
  const logger = createLogger({ level: "info", format: "json", instance: "host-1:3000", sink: { write: (line) => lines.push(line) }, ...settings });
  return { log: logOver(() => logger), lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
};

describe("the log", () => {
  it("writes one JSON object a line with level, time, instance, msg and the fields", () => {
    const { log, lines, parsed } = capture();
    log.info("request", { requestId: "r-1", status: 200 });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith("\n")).toBe(true);
    expect(lines[0]?.trimEnd().includes("\n")).toBe(false);
    const [line] = parsed();
    expect(line).toMatchObject({ level: "info", instance: "host-1:3000", msg: "request", requestId: "r-1", status: 200 });
    expect(new Date(String(line?.time)).toISOString()).toBe(line?.time);
  });

  it("drops the lines below LOG_LEVEL", () => {
    const { log, parsed } = capture({ level: "warn" });
    log.debug("a");
    log.info("b");
    log.warn("c");
    log.error("d");
    expect(parsed().map((line) => [line.level, line.msg])).toEqual([["warn", "c"], ["error", "d"]]);
    const debug = capture({ level: "debug" });
    debug.log.debug("probe");
    expect(debug.parsed().map((line) => line.level)).toEqual(["debug"]);
  });

  it("logs an Error passed as err with its type, message and stack (and its cause), not its other properties", () => {
    const { log, parsed } = capture();
    const failure = Object.assign(new Error("upstream answered 502", { cause: new TypeError("socket hang up") }), { code: "E_UPSTREAM", detail: "Key (email)=(jane@example.com) already exists." });
    log.error("lookup failed", { requestId: "r-2", err: failure });
    const err = parsed()[0]?.err as Record<string, unknown>;
    expect(err.type).toBe("Error");
    expect(err.code).toBe("E_UPSTREAM");
    expect(String(err.message)).toContain("upstream answered 502");
    expect(String(err.stack)).toMatch(/^Error: upstream answered 502\n\s+at /);
    expect(String(err.stack)).toContain("caused by: TypeError: socket hang up");
    expect(JSON.stringify(parsed())).not.toContain("jane@example.com");
  });

  it("logs a thrown non-Error as its text", () => {
    const { log, parsed } = capture();
    log.error("failed", { err: "plain string" });
    expect(parsed()[0]?.err).toEqual({ type: "string", message: "plain string" });
  });

  it("redacts authorization, cookie, token, password and secret fields, at the top and one level down", () => {
    const { log, lines } = capture();
    const secret = "sl_live.abcdef.SIGNATURE-0123456789";
    log.warn("oops", { authorization: `Bearer ${secret}`, cookie: secret, token: secret, password: secret, clientSecret: secret, keyId: "key_1" });
    const logger = createLogger({ level: "info", format: "json", instance: "i", sink: { write: (line) => lines.push(line) } });
    logger.info({ headers: { authorization: `Bearer ${secret}`, "set-cookie": secret, cookie: secret } }, "nested");
    expect(lines.join("")).not.toContain(secret);
    expect(lines.join("")).toContain('"keyId":"key_1"');
    expect(lines.join("")).toContain('"authorization":"[redacted]"');
  });

  it("writes readable lines in the pretty format: time, level, message, and a request line's method, path, status and latency", () => {
    const { log, lines } = capture({ format: "pretty" });
    log.info("request", { requestId: "r-3", channel: "api", operation: "followers", status: 200, latencyMs: 4.2, keyId: "key_1", method: "GET", path: "/v1/pinsite/followers" });
    log.error("failed", { err: new Error("boom") });
    const text = lines.join("");
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/v1\/pinsite\/followers 200 4\.2 ms \(api\) \{"requestId":"r-3","operation":"followers","keyId":"key_1"\}\n/);
    expect(text).toMatch(/ERROR: failed/);
    expect(text).toMatch(/Error: boom\n\s+at /);
    expect(text).not.toMatch(/^\{/);
  });

  it("reads LOG_FORMAT=auto as pretty at a terminal and JSON otherwise; names the instance by INSTANCE_ID or host and port", () => {
    expect(resolveFormat("auto", true)).toBe("pretty");
    expect(resolveFormat("auto", false)).toBe("json");
    expect(resolveFormat("json", true)).toBe("json");
    expect(resolveFormat("pretty", false)).toBe("pretty");
    expect(instanceName({ INSTANCE_ID: "app-2", PORT: 3000 }, "box")).toBe("app-2");
    expect(instanceName({ INSTANCE_ID: undefined, PORT: 3001 }, "box")).toBe("box:3001");
  });

  it("turns console.* calls into log lines, an Error argument into err", () => {
    const { log, parsed } = capture({ level: "debug" });
    const saved = { debug: console.debug, log: console.log, info: console.info, warn: console.warn, error: console.error };
    try {
      routeConsoleToLog(log);
      console.log("hello %s", "world");
      console.warn("careful");
      console.error("render failed", new Error("boom"));
    } finally {
      Object.assign(console, saved);
    }
    const lines = parsed();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([["info", "hello world"], ["warn", "careful"], ["error", "render failed"]]);
    expect(String((lines[2]?.err as { stack?: string }).stack)).toMatch(/^Error: boom\n/);
  });
});
