import { describe, expect, it } from "vitest";
import { classifyAnswer, parseRetryAfterMs, providerUrl } from "./upstream-client";
import { createCircuitBreaker, createSemaphore } from "./upstream-resilience";

describe("circuit breaker", () => {
  it("opens after `threshold` consecutive failures, lets one probe through after the cool-down, closes on its success", () => {
    let now = 0;
    const breaker = createCircuitBreaker({ threshold: 3, cooldownMs: 1000, now: () => now });
    breaker.onFailure();
    breaker.onSuccess();
    breaker.onFailure();
    breaker.onFailure();
    expect(breaker.snapshot().state).toBe("closed");
    breaker.onFailure();
    expect(breaker.snapshot()).toEqual({ state: "open", consecutiveFailures: 3, openUntil: new Date(1000).toISOString() });
    expect(breaker.tryAcquire()).toBe(false);
    now = 1000;
    expect(breaker.isOpen()).toBe(false);
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
    breaker.onSuccess();
    expect(breaker.snapshot()).toEqual({ state: "closed", consecutiveFailures: 0, openUntil: null });
  });

  it("opens again when the probe fails", () => {
    let now = 0;
    const breaker = createCircuitBreaker({ threshold: 1, cooldownMs: 1000, now: () => now });
    breaker.onFailure();
    now = 1500;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.onFailure();
    expect(breaker.snapshot().state).toBe("open");
    now = 2400;
    expect(breaker.tryAcquire()).toBe(false);
  });
});

describe("semaphore", () => {
  it("hands slots out in order and times waiters out", async () => {
    const semaphore = createSemaphore(1);
    const first = await semaphore.acquire(100);
    expect(first).not.toBeNull();
    const timedOut = await semaphore.acquire(20);
    expect(timedOut).toBeNull();
    const waiting = semaphore.acquire(1000);
    expect(semaphore.snapshot()).toEqual({ max: 1, inUse: 1, waiting: 1 });
    first?.();
    const second = await waiting;
    expect(second).not.toBeNull();
    second?.();
    expect(semaphore.snapshot()).toEqual({ max: 1, inUse: 0, waiting: 0 });
  });
});

describe("reading the provider's answers", () => {
  const envelope = (code: number, message: string, data: unknown = null) => JSON.stringify({ code, message, data });

  it.each([
    [200, envelope(0, "success", { x: 1 }), { kind: "data", data: { x: 1 } }],
    [404, envelope(404, "Event not found"), { kind: "not_found", message: "Event not found" }],
    [200, envelope(404, "User not found"), { kind: "not_found", message: "User not found" }],
    [500, envelope(500, "Profile not found"), { kind: "not_found", message: "Profile not found" }],
    [402, envelope(402, "apiKey quota is not enough"), { kind: "key_rejected", httpStatus: 402, message: "apiKey quota is not enough" }],
    [401, envelope(401, "apiKey is null"), { kind: "key_rejected", httpStatus: 401, message: "apiKey is null" }],
    [429, envelope(429, "qps limit exceeded"), { kind: "rate_limited", retryAfterMs: 1000 }],
    [503, "<html>busy</html>", { kind: "retryable", message: "HTTP 503: HTTP 503" }],
    [404, "<html>no</html>", { kind: "bad_answer", message: expect.stringMatching(/base URL/) }],
    [302, "", { kind: "bad_answer", message: expect.stringMatching(/redirect/) }],
    [400, envelope(400, "Missing required parameter: handle"), { kind: "bad_answer", message: "HTTP 400: Missing required parameter: handle" }],
  ])("HTTP %i %s", (status, text, expected) => {
    expect(classifyAnswer(status, text, null)).toEqual(expected);
  });

  it("reads Retry-After in seconds or as a date", () => {
    expect(parseRetryAfterMs("3", 0)).toBe(3000);
    expect(parseRetryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfterMs("soon", 0)).toBeNull();
    expect(parseRetryAfterMs(null, 0)).toBeNull();
  });

  it("joins the base URL (with or without a path or trailing slash) and the operation's path", () => {
    expect(providerUrl("https://p.example", "v1/x", { a: "1 2" }).toString()).toBe("https://p.example/v1/x?a=1+2");
    expect(providerUrl("https://p.example/api/", "/v1/x", {}).toString()).toBe("https://p.example/api/v1/x");
    expect(providerUrl("https://p.example/api", "v1/x", {}).toString()).toBe("https://p.example/api/v1/x");
  });
});
