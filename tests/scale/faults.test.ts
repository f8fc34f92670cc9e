import { describe, expect, it } from "vitest";
import {
  cluster,
  control,
  countStatuses,
  delay,
  health,
  issueKey,
  readLedger,
  skipped,
  sumCharged,
  useWholeCluster,
} from "./harness";
import { isErrorEnvelope, percentile, startTraffic, type Sample } from "./traffic";

/**
 * Faults mid-traffic, on the suite's own infrastructure only: the network to PostgreSQL is cut
 * by the TCP proxy the instances connect through (bytes stop, nothing is refused — every wait
 * runs into DB_TIMEOUT_MS, 2000 ms here), and the suite's redis-server is SIGKILLed.
 */
const WORKERS = 12;
// What one request may add on top of the database timeout: the pipeline, the HTTP hop, a 2-core
// machine busy with three instances and this client.
const SLACK_MS = 1000;

const describeLatency = (samples: readonly Sample[]): string => {
  const latencies = samples.map((sample) => sample.answer.latencyMs);
  return `n=${samples.length} p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms, max ${Math.max(0, ...latencies).toFixed(0)} ms`;
};

describe.skipIf(skipped())("faults mid-traffic", () => {
  useWholeCluster({ repairAfter: true });

  describe("PostgreSQL cut off", () => {
    it("answers 500 envelopes within DB_TIMEOUT_MS while cut, then recovers fully without a restart", async () => {
      const dbTimeoutMs = cluster().dbTimeoutMs;
      const key = await issueKey("scale-fault-pg", { credits: 1_000_000, qps: 100_000 });
      const traffic = startTraffic(key, { workers: WORKERS });
      await delay(1500);
      await control.cutPostgres();
      const cutAtMs = traffic.now();
      await delay(3 * dbTimeoutMs + 1000);
      await control.restorePostgres();
      const restoredAtMs = traffic.now();
      // Recovery: the first 200 sent after the restore, then two more seconds of traffic.
      let recoveredAtMs: number | null = null;
      const deadline = performance.now() + 30_000;
      while (recoveredAtMs === null && performance.now() < deadline) {
        recoveredAtMs = traffic.samples().find((sample) => sample.sentAtMs > restoredAtMs && sample.answer.status === 200)?.doneAtMs ?? null;
        await delay(50);
      }
      await delay(2000);
      const stoppedAtMs = traffic.now();
      const samples = await traffic.stop();

      const before = samples.filter((sample) => sample.doneAtMs < cutAtMs);
      const during = samples.filter((sample) => sample.sentAtMs >= cutAtMs && sample.doneAtMs < restoredAtMs);
      const settled = samples.filter((sample) => sample.sentAtMs >= stoppedAtMs - 1500);
      console.log(
        `[fault:pg] before the cut ${JSON.stringify(countStatuses(before.map((s) => s.answer)))} ${describeLatency(before)}; ` +
          `during ${JSON.stringify(countStatuses(during.map((s) => s.answer)))} ${describeLatency(during)}; ` +
          `first 200 ${recoveredAtMs === null ? "never" : `${(recoveredAtMs - restoredAtMs).toFixed(0)} ms`} after the restore; ` +
          `last 1.5 s ${JSON.stringify(countStatuses(settled.map((s) => s.answer)))}`,
      );

      expect.soft(countStatuses(before.map((sample) => sample.answer))).toEqual({ 200: before.length });
      // While cut: only 500 envelopes, none slower than the database timeout (+ slack), no hang.
      expect.soft(during.length).toBeGreaterThan(0);
      const notEnvelopes = during.filter((sample) => !isErrorEnvelope(sample.answer, 500, "Internal server error"));
      expect.soft(notEnvelopes.map((sample) => `${sample.answer.status} ${sample.answer.error ?? sample.answer.text.slice(0, 80)}`)).toEqual([]);
      const slow = samples.filter((sample) => sample.answer.latencyMs > dbTimeoutMs + SLACK_MS);
      expect.soft(
        slow.map((sample) => `sent at ${sample.sentAtMs.toFixed(0)} ms (cut at ${cutAtMs.toFixed(0)}): ${sample.answer.status} after ${sample.answer.latencyMs.toFixed(0)} ms`),
        `requests slower than DB_TIMEOUT_MS (${dbTimeoutMs}) + ${SLACK_MS} ms`,
      ).toEqual([]);
      // Recovery without a restart: every instance answers 200 again.
      expect.soft(recoveredAtMs).not.toBeNull();
      expect.soft(settled.length).toBeGreaterThan(0);
      expect.soft(countStatuses(settled.map((sample) => sample.answer))).toEqual({ 200: settled.length });
      expect.soft(new Set(settled.map((sample) => sample.instance)).size).toBe(cluster().instances.length);

      // Nothing was charged without its 200 record, and the client saw a 200 for every charge.
      await delay(500);
      const ledger = await readLedger(key.id);
      const spent = ledger.creditsGranted - ledger.creditsRemaining;
      expect.soft(spent).toBe(sumCharged(ledger.usage, (row) => row.status === 200));
      expect.soft(sumCharged(ledger.usage, (row) => row.status !== 200)).toBe(0);
      const okSeen = samples.filter((sample) => sample.answer.status === 200).length;
      expect.soft(ledger.usage.filter((row) => row.status === 200).length, "charged 200 usage records vs 200 answers the clients saw").toBe(okSeen);
    });
  });

  describe("Redis killed", () => {
    it("keeps answering 200 (limits from memory) with no 5xx, and every instance is back on Redis within 5 s of its return", async () => {
      const key = await issueKey("scale-fault-redis", { credits: 1_000_000, qps: 100_000 });
      const traffic = startTraffic(key, { workers: WORKERS });
      await delay(1500);
      await control.killRedis();
      const killedAtMs = traffic.now();
      await delay(3000);
      await control.startRedis();
      const startedAtMs = traffic.now();
      let backOnRedisMs: number | null = null;
      while (backOnRedisMs === null && traffic.now() - startedAtMs < 5000) {
        const reports = await Promise.all(cluster().instances.map(health));
        if (reports.every((report) => report?.redis === "ok")) backOnRedisMs = traffic.now() - startedAtMs;
        else await delay(100);
      }
      await delay(2000);
      const samples = await traffic.stop();

      const during = samples.filter((sample) => sample.sentAtMs >= killedAtMs && sample.sentAtMs < startedAtMs);
      console.log(
        `[fault:redis] all ${JSON.stringify(countStatuses(samples.map((s) => s.answer)))} ${describeLatency(samples)}; ` +
          `while Redis was dead ${describeLatency(during)}; every instance on Redis again ${backOnRedisMs === null ? "never" : `${backOnRedisMs.toFixed(0)} ms`} after it returned`,
      );
      expect(backOnRedisMs).not.toBeNull();
      expect(during.length).toBeGreaterThan(0);
      expect(countStatuses(samples.map((sample) => sample.answer))).toEqual({ 200: samples.length });
      const ledger = await readLedger(key.id);
      expect(ledger.creditsGranted - ledger.creditsRemaining).toBe(2 * samples.length);
    });
  });
});
