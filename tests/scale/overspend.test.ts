import { describe, expect, it } from "vitest";
import {
  bearer,
  control,
  countStatuses,
  delay,
  FOLLOWERS,
  header,
  health,
  instanceFor,
  issueKey,
  issuePooledKeys,
  message,
  readLedger,
  readPool,
  send,
  skipped,
  sumCharged,
  sumRequests,
  cluster,
  type Answer,
  type IssuedKey,
  useWholeCluster,
} from "./harness";

/**
 * docs/decisions.md "Credits": N concurrent requests against a key with credits for k of them yield
 * exactly k successes and N−k 402s "on one instance or many" — here 300 at once spread over three
 * instances, with the shared Redis up and with it killed (each instance then limits from memory).
 * Afterwards Redis comes back and the instances share one window per key again within 5 s.
 */
const REQUESTS = 300;
const AFFORDABLE = 100;
const FOLLOWERS_COST = 2;
const REDIS_RETURN_DEADLINE_MS = 5000;

const burst = (key: IssuedKey, count: number): Promise<Answer[]> =>
  Promise.all(Array.from({ length: count }, (_, sequence) => send(instanceFor(sequence).port, FOLLOWERS, { headers: bearer(key.token) })));

const expectExactlyAffordable = async (key: IssuedKey): Promise<void> => {
  const answers = await burst(key, REQUESTS);
  expect(countStatuses(answers)).toEqual({ 200: AFFORDABLE, 402: REQUESTS - AFFORDABLE });
  for (const answer of answers) {
    expect(header(answer, "x-credits-charged")).toBe(answer.status === 200 ? String(FOLLOWERS_COST) : "0");
    if (answer.status === 402) expect(message(answer)).toBe("apiKey quota is not enough");
    expect(Number(header(answer, "x-credits-remaining"))).toBeGreaterThanOrEqual(0);
  }
  const ledger = await readLedger(key.id);
  expect(ledger.creditsRemaining).toBe(0);
  // One record per request, except free refusals past 10 per second: one counted aggregate.
  expect(sumRequests(ledger.usage)).toBe(REQUESTS);
  expect(sumCharged(ledger.usage)).toBe(AFFORDABLE * FOLLOWERS_COST);
  expect(sumCharged(ledger.usage, (row) => row.status === 200)).toBe(AFFORDABLE * FOLLOWERS_COST);
  expect(ledger.usage.filter((row) => row.status === 200)).toHaveLength(AFFORDABLE);
};

describe.skipIf(skipped())("300 concurrent followers lookups over 3 instances, credits for 100", () => {
  useWholeCluster({ repairAfter: true });

  it("charges 300 lookups over 6 keys of one team pool, credits for 100, exactly: 100 × 200, 200 × 402, the pool at 0", async () => {
    const team = await issuePooledKeys("scale-pool", { pool: AFFORDABLE * FOLLOWERS_COST, keys: 6, qps: 100_000 });
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, (_, sequence) =>
        send(instanceFor(sequence).port, FOLLOWERS, { headers: bearer(team.keys[sequence % team.keys.length]!.token) }),
      ),
    );
    expect(countStatuses(answers)).toEqual({ 200: AFFORDABLE, 402: REQUESTS - AFFORDABLE });
    for (const answer of answers) {
      if (answer.status === 402) expect(message(answer)).toBe("apiKey quota is not enough");
      expect(Number(header(answer, "x-credits-remaining"))).toBeGreaterThanOrEqual(0);
    }
    expect(await readPool(team.workspaceId)).toBe(0);
    let charged = 0;
    let requests = 0;
    for (const key of team.keys) {
      const ledger = await readLedger(key.id);
      charged += sumCharged(ledger.usage);
      requests += sumRequests(ledger.usage);
    }
    expect(charged).toBe(AFFORDABLE * FOLLOWERS_COST);
    expect(requests).toBe(REQUESTS);
  });

  it("holds a workspace's shared per-second limit across its keys and the instances", async () => {
    const qps = 5;
    const team = await issuePooledKeys("scale-shared-limit", { pool: 10_000, keys: 3, qps: 1000, workspaceQps: qps });
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, sequence) =>
        send(instanceFor(sequence).port, FOLLOWERS, { headers: bearer(team.keys[sequence % team.keys.length]!.token) }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(qps);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(15 - qps);
  });

  it("answers exactly 100 × 200 and 200 × 402 and leaves 0 credits, 300 usage records, 200 credits charged", async () => {
    const key = await issueKey("scale-overspend", { credits: AFFORDABLE * FOLLOWERS_COST, qps: 100_000 });
    await expectExactlyAffordable(key);
  });

  it("does the same with the shared Redis killed (rate limits from each instance's memory)", async () => {
    const key = await issueKey("scale-overspend-no-redis", { credits: AFFORDABLE * FOLLOWERS_COST, qps: 100_000 });
    await control.killRedis();
    // Every instance has noticed: its limiter reports Redis down.
    const deadline = Date.now() + 10_000;
    while (!(await Promise.all(cluster().instances.map(health))).every((report) => report?.redis === "down")) {
      if (Date.now() > deadline) throw new Error("the instances never noticed Redis was gone");
      await delay(100);
    }
    await expectExactlyAffordable(key);
  });

  it("shares one window per key across instances again within 5 s of Redis coming back", async () => {
    const qps = 5;
    // Fresh keys, so each probe starts its own window; 12 requests at once over three instances.
    const keys = await Promise.all(Array.from({ length: 30 }, (_, index) => issueKey(`scale-redis-back-${index}`, { credits: 10_000, qps })));
    await control.startRedis();
    const startedAt = Date.now();
    const probes: { afterMs: number; admitted: number }[] = [];
    for (const key of keys) {
      const answers = await burst(key, 12);
      const admitted = answers.filter((answer) => answer.status !== 429).length;
      probes.push({ afterMs: Date.now() - startedAt, admitted });
      if (admitted <= qps) break;
      await delay(200);
    }
    const shared = probes.find((probe) => probe.admitted <= qps);
    console.log(`[redis-return] probes after redis-server started (12 requests, qps ${qps}): ${JSON.stringify(probes)}`);
    expect(shared, `probes: ${JSON.stringify(probes)}`).toBeDefined();
    expect(shared?.afterMs ?? Infinity).toBeLessThan(REDIS_RETURN_DEADLINE_MS);

    // And it stays shared: two instances, one key, one window.
    const key = await issueKey("scale-redis-shared", { credits: 10_000, qps });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, sequence) => send(instanceFor(sequence % 2).port, FOLLOWERS, { headers: bearer(key.token) })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(qps);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(10 - qps);
  });
});
