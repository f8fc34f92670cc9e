import { describe, expect, it } from "vitest";
import {
  bearer,
  countStatuses,
  delay,
  FOLLOWERS,
  header,
  instanceFor,
  issueKey,
  message,
  send,
  skipped,
  type Answer,
  useWholeCluster,
} from "./harness";

/**
 * The per-key limit holds across instances (one window in Redis): a key with qps 10, driven at
 * 50 requests/s spread over three instances for 10 s, is admitted between 95 % and 100 % of
 * 10 × 10 requests, and no whole second (counted from the first request) admits more than its 10.
 */
const QPS = 10;
const RATE_PER_S = 50;
const SECONDS = 10;

type Sent = { sentAtMs: number; answer: Answer };

describe.skipIf(skipped())("qps 10 driven at 50 requests/s over 3 instances for 10 s", () => {
  useWholeCluster();

  it("admits 95-100 of 100 requests and never more than 10 in a whole second", async () => {
    const key = await issueKey("scale-rate", { credits: 1_000_000, qps: QPS });
    const intervalMs = 1000 / RATE_PER_S;
    const total = RATE_PER_S * SECONDS;
    const startedAt = performance.now();
    // On a fixed schedule, not one after another: a slow answer must not slow the rate.
    const sent: Sent[] = await Promise.all(
      Array.from({ length: total }, async (_, sequence) => {
        await delay(Math.max(0, startedAt + sequence * intervalMs - performance.now()));
        const sentAtMs = performance.now() - startedAt;
        return { sentAtMs, answer: await send(instanceFor(sequence).port, FOLLOWERS, { headers: bearer(key.token) }) };
      }),
    );

    const statuses = countStatuses(sent.map(({ answer }) => answer));
    expect(Object.keys(statuses).sort()).toEqual(["200", "429"]);
    const admitted = sent.filter(({ answer }) => answer.status === 200);
    const perSecond = Array.from({ length: SECONDS }, (_, second) =>
      admitted.filter(({ sentAtMs }) => sentAtMs >= second * 1000 && sentAtMs < (second + 1) * 1000).length,
    );
    // Any one-second span starting at an admitted request. The limiter's windows are fixed (each
    // starts at the first request after the previous one ended), so a span straddling two windows
    // can hold the tail of one and the head of the next: reported, not asserted (see README).
    let busiestWindow = 0;
    for (const { sentAtMs } of admitted) {
      busiestWindow = Math.max(busiestWindow, admitted.filter((other) => other.sentAtMs >= sentAtMs && other.sentAtMs < sentAtMs + 1000).length);
    }
    console.log(
      `[rate-limit] qps ${QPS} at ${RATE_PER_S}/s over 3 instances for ${SECONDS} s: ${admitted.length} admitted ` +
        `(${((admitted.length / (QPS * SECONDS)) * 100).toFixed(0)} %), per whole second ${JSON.stringify(perSecond)}, ` +
        `most in any 1 s from an admitted request: ${busiestWindow}, statuses ${JSON.stringify(statuses)}`,
    );

    expect(admitted.length).toBeGreaterThanOrEqual(0.95 * QPS * SECONDS);
    expect(admitted.length).toBeLessThanOrEqual(QPS * SECONDS);
    for (const count of perSecond) expect(count).toBeLessThanOrEqual(QPS);
    for (const { answer } of sent) {
      expect(header(answer, "ratelimit-limit")).toBe(String(QPS));
      if (answer.status === 429) {
        expect(message(answer)).toBe("qps limit exceeded");
        expect(header(answer, "retry-after")).toMatch(/^[1-9]\d*$/);
        expect(header(answer, "x-credits-charged")).toBe("0");
      }
    }
  });
});
