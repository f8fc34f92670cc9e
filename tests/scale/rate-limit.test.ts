import { describe, expect, it } from "vitest";
import { busiestSecond } from "@/scripts/rate-accuracy";
import {
  bearer,
  database,
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
 * docs/decisions.md "Bulk, agents and keys": the per-second limit holds in every sliding second. A key
 * with qps 10, driven at twice that (20 requests/s) spread over three instances sharing one Redis
 * log for 5 s, never has more than 10 admissions in any 1,000 ms — counted on the times the
 * limiter itself used (each admitted request's start, its usage record's created_at) — and is
 * admitted close to the 50 the limit allows.
 */
const QPS = 10;
const RATE_PER_S = 2 * QPS;
const SECONDS = 5;

type Sent = { sentAtMs: number; answer: Answer };

describe.skipIf(skipped())(`qps ${QPS} driven at ${RATE_PER_S} requests/s over 3 instances for ${SECONDS} s`, () => {
  useWholeCluster();

  it(`admits at most ${QPS} in any sliding second, and close to ${QPS * SECONDS} in all`, async () => {
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
    const admittedAt = (
      await database().query<{ at: string }>(
        "SELECT (extract(epoch FROM created_at) * 1000)::float8 AS at FROM usage_events WHERE key_id = $1 AND status = 200",
        [key.id],
      )
    ).rows.map((row) => Number(row.at));
    const busiest = busiestSecond(admittedAt);
    console.log(
      `[rate-limit] qps ${QPS} at ${RATE_PER_S}/s over 3 instances (Redis) for ${SECONDS} s: ${admitted.length} admitted, ` +
        `busiest sliding second ${busiest} (${(busiest / QPS).toFixed(1)}× the limit; by send time ${busiestSecond(admitted.map(({ sentAtMs }) => sentAtMs))}), ` +
        `statuses ${JSON.stringify(statuses)}`,
    );

    expect(admittedAt).toHaveLength(admitted.length);
    expect(busiest).toBeLessThanOrEqual(QPS);
    // A sliding second lets the first 10 in at once, then one every 100 ms as they age out.
    expect(admitted.length).toBeGreaterThanOrEqual(0.8 * QPS * SECONDS);
    expect(admitted.length).toBeLessThanOrEqual(QPS * SECONDS);
    for (const { answer } of sent) {
      expect(header(answer, "ratelimit-limit")).toBe(String(QPS));
      if (answer.status === 429) {
        expect(message(answer)).toBe("qps limit exceeded");
        // The next slot frees within the second: the wait said is exactly one second, never 0.
        expect(header(answer, "retry-after")).toBe("1");
        expect(header(answer, "ratelimit-remaining")).toBe("0");
        expect(header(answer, "x-credits-charged")).toBe("0");
      }
    }
  });
});
