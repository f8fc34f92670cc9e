import fs from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { delay, type ApiTarget } from "./harness";
import { call, header, paths } from "./http";
import { USER_30 } from "@/tests/support/demo-subjects";

/**
 * The request log (lib/front/request-log.ts) as the suite's servers write it (LOG_FORMAT=json):
 * one line per request at its end, found by the answer's X-Request-Id.
 */
const targets = inject("apiTargets");

type Line = Record<string, unknown>;

const linesOf = async (target: ApiTarget, requestId: string): Promise<Line[]> => {
  // The line is written once the answer is finished: a moment after the client has it.
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const found = fs
      .readFileSync(target.logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{") && line.includes(requestId))
      .map((line) => JSON.parse(line) as Line);
    if (found.length > 0) {
      await delay(200);
      return fs
        .readFileSync(target.logFile, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes(requestId))
        .map((line) => JSON.parse(line) as Line);
    }
    await delay(100);
  }
  return [];
};

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const key = target.keys.requestLog;

  it("writes exactly one JSON request line for a /v1 lookup, with its X-Request-Id, key id, operation, status and latency, and no query", async () => {
    const answer = await call(target, paths.followers, { auth: key, query: { userid: USER_30 } });
    expect(answer.status).toBe(200);
    const requestId = header(answer, "x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const lines = await linesOf(target, requestId ?? "");
    const requests = lines.filter((line) => line.msg === "request");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      level: "info",
      requestId,
      channel: "api",
      operation: "followers",
      status: 200,
      keyId: key.id,
      method: "GET",
      path: paths.followers,
    });
    expect(typeof requests[0]?.latencyMs).toBe("number");
    expect(typeof requests[0]?.instance).toBe("string");
    expect(typeof requests[0]?.time).toBe("string");
    const text = JSON.stringify(lines);
    expect(text).not.toContain(key.token);
    expect(text).not.toContain(USER_30);
  });

  it("gives /v1/batches and /v1/account request lines the key id, as a lookup's, with their operation and no query", async () => {
    const list = await call(target, "/v1/batches", { auth: key, query: { limit: "5" } });
    expect(list.status).toBe(200);
    const refused = await fetch(`${target.baseUrl}/v1/batches`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key.token}`, "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(refused.status).toBe(400);
    const account = await call(target, "/v1/account", { auth: key });
    expect(account.status).toBe(200);
    const answers = [
      { requestId: header(list, "x-request-id"), operation: "batches", status: 200, method: "GET", path: "/v1/batches" },
      { requestId: refused.headers.get("x-request-id"), operation: "batches", status: 400, method: "POST", path: "/v1/batches" },
      { requestId: header(account, "x-request-id"), operation: "account", status: 200, method: "GET", path: "/v1/account" },
    ];
    for (const { requestId, ...expected } of answers) {
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const requests = (await linesOf(target, requestId ?? "")).filter((line) => line.msg === "request");
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ level: "info", requestId, channel: "api", keyId: key.id, ...expected });
      expect(JSON.stringify(requests[0])).not.toContain(key.token);
      expect(JSON.stringify(requests[0])).not.toContain("limit=");
    }
  });

  it("logs a refused request too: 401 without a key, no key id", async () => {
    for (const path of [paths.followers, "/v1/batches"]) {
      const answer = await call(target, path, { query: { userid: USER_30 } });
      expect(answer.status).toBe(401);
      const requestId = header(answer, "x-request-id");
      expect(requestId).not.toBeNull();
      const requests = (await linesOf(target, requestId ?? "")).filter((line) => line.msg === "request");
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ requestId, channel: "api", status: 401, keyId: null, path });
    }
  });
});
