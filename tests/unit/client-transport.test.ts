import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  BadRequestError,
  NetworkError,
  RateLimitedError,
  RequestTimeoutError,
  ServerError,
  SocialLookup,
  type RetryEvent,
} from "@/clients/typescript/src/index";

/**
 * The TypeScript SDK's retry rules where the real server cannot be made to fail on demand: a
 * small local HTTP server answers with scripted statuses (real sockets, the SDK's real fetch).
 * 5xx and network errors retry with jittered backoff, bounded and off with maxRetries: 0; a POST
 * is not repeated after a 5xx; a 429 without Retry-After (a quota) is the answer; a slow answer
 * times out. The API suite covers 429 with Retry-After and 400–404 against the real server.
 */
type Scripted = { status: number; body?: unknown; delayMs?: number; headers?: Record<string, string> };

const envelope = (code: number, message: string, data: unknown = null) => ({ code, message, data, requestId: "00000000-0000-4000-8000-000000000000" });

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  })));
});

const scriptedServer = async (answers: Scripted[]) => {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const answer = answers.shift() ?? { status: 500, body: envelope(500, "Internal server error") };
    setTimeout(() => {
      response.writeHead(answer.status, { "Content-Type": "application/json", "X-Credits-Charged": "0", ...answer.headers });
      response.end(JSON.stringify(answer.body ?? {}));
    }, answer.delayMs ?? 0);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
};

describe("the TypeScript SDK's retries", () => {
  it("retries a 5xx with backoff, then answers", async () => {
    const server = await scriptedServer([{ status: 500, body: envelope(500, "Internal server error") }, { status: 503, body: envelope(503, "busy") }, { status: 200, body: envelope(0, "success", { key: {} }) }]);
    const retries: RetryEvent[] = [];
    const client = new SocialLookup({ apiKey: "k", baseUrl: server.url, retryBaseDelayMs: 10, onRetry: (event) => retries.push(event) });
    expect((await client.account()).data).toEqual({ key: {} });
    expect(server.requests).toHaveLength(3);
    expect(retries.map((event) => [event.reason, event.attempt, event.status])).toEqual([["server_error", 1, 500], ["server_error", 2, 503]]);
    // Jittered: half the ceiling fixed, half random (10 ms, then 20 ms).
    expect(retries[0]?.waitMs).toBeGreaterThanOrEqual(5);
    expect(retries[0]?.waitMs).toBeLessThanOrEqual(10);
    expect(retries[1]?.waitMs).toBeGreaterThanOrEqual(10);
    expect(retries[1]?.waitMs).toBeLessThanOrEqual(20);
  });

  it("is bounded, and off with maxRetries: 0", async () => {
    const bounded = await scriptedServer(Array.from({ length: 5 }, () => ({ status: 502, body: envelope(502, "bad gateway") })));
    await expect(new SocialLookup({ apiKey: "k", baseUrl: bounded.url, maxRetries: 2, retryBaseDelayMs: 1 }).account()).rejects.toBeInstanceOf(ServerError);
    expect(bounded.requests).toHaveLength(3);
    const off = await scriptedServer([{ status: 500, body: envelope(500, "Internal server error") }]);
    await expect(new SocialLookup({ apiKey: "k", baseUrl: off.url, maxRetries: 0 }).account()).rejects.toSatisfy(
      (error) => error instanceof ServerError && error.message === "Internal server error" && error.status === 500,
    );
    expect(off.requests).toHaveLength(1);
  });

  it("never repeats a POST that may have created a batch, and never retries a 400", async () => {
    const server = await scriptedServer([{ status: 500, body: envelope(500, "Internal server error") }, { status: 400, body: envelope(400, "Invalid parameter: event_id") }]);
    const client = new SocialLookup({ apiKey: "k", baseUrl: server.url, retryBaseDelayMs: 1 });
    await expect(client.batches.create({ operation: "event_details_id", inputs: ["1"] })).rejects.toBeInstanceOf(ServerError);
    await expect(client.eventDetailsId({ event_id: "x" })).rejects.toBeInstanceOf(BadRequestError);
    expect(server.requests).toEqual(["POST /v1/batches", "GET /v1/eventsite/event_details_id?event_id=x"]);
  });

  it("answers a 429 without Retry-After (a quota) at once, and stops waiting out 429s after maxRateLimitWaits", async () => {
    const quota = await scriptedServer([{ status: 429, body: envelope(429, "You have 10 batches queued or running") }]);
    await expect(new SocialLookup({ apiKey: "k", baseUrl: quota.url }).account()).rejects.toSatisfy(
      (error) => error instanceof RateLimitedError && error.retryAfterS === null,
    );
    expect(quota.requests).toHaveLength(1);
    const limited = await scriptedServer(Array.from({ length: 3 }, () => ({ status: 429, body: envelope(429, "qps limit exceeded"), headers: { "Retry-After": "0" } })));
    await expect(new SocialLookup({ apiKey: "k", baseUrl: limited.url, maxRateLimitWaits: 2 }).account()).rejects.toSatisfy(
      (error) => error instanceof RateLimitedError && error.retryAfterS === 0,
    );
    expect(limited.requests).toHaveLength(3);
  });

  it("times out a slow answer, and a refused connection is a NetworkError after its retries", async () => {
    const slow = await scriptedServer([{ status: 200, body: envelope(0, "success", {}), delayMs: 1000 }]);
    const started = Date.now();
    await expect(new SocialLookup({ apiKey: "k", baseUrl: slow.url, timeoutMs: 150, maxRetries: 0 }).account()).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(Date.now() - started).toBeLessThan(900);
    const gone = await scriptedServer([]);
    const url = gone.url;
    await new Promise<void>((resolve) => servers.splice(0).forEach((server) => server.close(() => resolve())));
    const retries: RetryEvent[] = [];
    await expect(new SocialLookup({ apiKey: "k", baseUrl: url, maxRetries: 1, retryBaseDelayMs: 1, onRetry: (event) => retries.push(event) }).account()).rejects.toBeInstanceOf(NetworkError);
    expect(retries.map((event) => event.reason)).toEqual(["network"]);
  });

  it("refuses a parameter the operation does not take, before sending anything", async () => {
    const client = new SocialLookup({ apiKey: "k", baseUrl: "http://127.0.0.1:9" });
    await expect(client.eventDetailsId({ event_id: "1", eventid: "2" } as { event_id: string })).rejects.toThrow('event-details-id: unknown parameter "eventid" (it takes event_id)');
    expect(() => new SocialLookup({ apiKey: "", baseUrl: "http://127.0.0.1:9" })).toThrow(/needs an API key/);
  });
});
