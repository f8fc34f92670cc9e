import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { classifyAnswer, parseRetryAfterMs, providerUrl } from "./upstream-client";
import { BreakerOpenError, createUpstreamGuard, NoSlotError } from "./upstream-resilience";

type Outcome = "ok" | "fail";

const guardOf = (options: { threshold: number; cooldownMs: number; maxConcurrency?: number }) =>
  createUpstreamGuard<Outcome>({
    maxConcurrency: 16,
    ...options,
    isFailure: (outcome) => outcome === "fail",
    isValue: (value): value is Outcome => value === "ok" || value === "fail",
  });

/** An attempt that ends when the test says so. */
const pending = () => {
  let settle: (outcome: Outcome) => void = () => undefined;
  const promise = new Promise<Outcome>((resolve) => (settle = resolve));
  return { attempt: () => promise, settle: (outcome: Outcome) => settle(outcome) };
};

describe("circuit breaker", () => {
  it("opens after `threshold` consecutive failures, lets one probe through after the cool-down, closes on its success", async () => {
    const guard = guardOf({ threshold: 3, cooldownMs: 300 });
    let calls = 0;
    const attempt = (outcome: Outcome) => () => {
      calls += 1;
      return Promise.resolve(outcome);
    };
    await guard.run(attempt("fail"), 100);
    await guard.run(attempt("ok"), 100);
    await guard.run(attempt("fail"), 100);
    await guard.run(attempt("fail"), 100);
    expect(guard.breaker()).toEqual({ state: "closed", consecutiveFailures: 2, openUntil: null });
    const openedAfter = Date.now();
    await guard.run(attempt("fail"), 100);
    const open = guard.breaker();
    expect(open).toMatchObject({ state: "open", consecutiveFailures: 3 });
    expect(Date.parse(open.openUntil ?? "")).toBeGreaterThanOrEqual(openedAfter + 300);
    expect(guard.isOpen()).toBe(true);
    await expect(guard.run(attempt("ok"), 100)).rejects.toBeInstanceOf(BreakerOpenError);
    expect(calls).toBe(5);

    await sleep(320);
    expect(guard.breaker().state).toBe("half-open");
    expect(guard.isOpen()).toBe(false);
    const probe = pending();
    const probing = guard.run(probe.attempt, 100);
    // While the probe is out, callers are refused before they spend anything.
    expect(guard.isOpen()).toBe(true);
    probe.settle("ok");
    expect(await probing).toBe("ok");
    expect(guard.breaker()).toEqual({ state: "closed", consecutiveFailures: 0, openUntil: null });
    expect(guard.isOpen()).toBe(false);
  });

  it("opens again when the probe fails", async () => {
    const guard = guardOf({ threshold: 1, cooldownMs: 200 });
    await guard.run(() => Promise.resolve("fail"), 100);
    expect(guard.breaker().state).toBe("open");
    await sleep(220);
    expect(await guard.run(() => Promise.resolve("fail"), 100)).toBe("fail");
    expect(guard.breaker().state).toBe("open");
    await expect(guard.run(() => Promise.resolve("ok"), 100)).rejects.toBeInstanceOf(BreakerOpenError);
  });

  it("an attempt that throws counts as neither a success nor a failure", async () => {
    const guard = guardOf({ threshold: 2, cooldownMs: 1000 });
    await guard.run(() => Promise.resolve("fail"), 100);
    await expect(guard.run(() => Promise.reject(new Error("aborted")), 100)).rejects.toThrow("aborted");
    expect(guard.breaker()).toMatchObject({ state: "closed", consecutiveFailures: 1 });
  });
});

describe("concurrency cap", () => {
  it("hands slots out in order and times waiters out", async () => {
    const guard = guardOf({ threshold: 5, cooldownMs: 1000, maxConcurrency: 1 });
    const first = pending();
    const running = guard.run(first.attempt, 100);
    await expect(guard.run(() => Promise.resolve("ok"), 20)).rejects.toBeInstanceOf(NoSlotError);
    const order: string[] = [];
    const second = guard.run(async () => {
      order.push("second");
      return "ok";
    }, 1000);
    const third = guard.run(async () => {
      order.push("third");
      return "ok";
    }, 1000);
    expect(guard.concurrency()).toEqual({ max: 1, inUse: 1, waiting: 2 });
    first.settle("ok");
    expect(await Promise.all([running, second, third])).toEqual(["ok", "ok", "ok"]);
    expect(order).toEqual(["second", "third"]);
    expect(guard.concurrency()).toEqual({ max: 1, inUse: 0, waiting: 0 });
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
