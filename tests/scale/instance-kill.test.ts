import { describe, expect, it } from "vitest";
import { cluster, control, countStatuses, delay, ensureWholeCluster, issueKey, readLedger, skipped, sumCharged, useWholeCluster } from "./harness";
import { startTraffic } from "./traffic";

/**
 * An instance SIGKILLed while requests are in flight loses no charge/usage
 * consistency — each request is either charged with its usage record or neither. Group commit
 * makes a batch one transaction: PostgreSQL rolls back what a dead connection left open.
 */
const VICTIM = 1;
const VICTIM_WORKERS = 20;
/** How long the victim's requests are held before the kill: far below the instances' database timeout. */
const HOLD_MS = 400;

describe.skipIf(skipped())("an instance killed mid-request", () => {
  useWholeCluster({ repairAfter: true });

  it("leaves credits spent equal to the credits of the 200 usage records, and nothing pending", async () => {
    const key = await issueKey("scale-instance-kill", { credits: 1_000_000, qps: 100_000 });
    // Twenty requests at a time on the victim alone, and steady traffic on all three.
    const onVictim = startTraffic(key, { workers: VICTIM_WORKERS, onlyInstance: VICTIM });
    const everywhere = startTraffic(key, { workers: 6 });
    await delay(2000);
    // Requests are held in flight on the victim, not caught there by timing: its network to
    // PostgreSQL goes silent, so every lookup it has started waits on the database (for
    // settlement, some inside an open transaction) until the kill, well before the database
    // timeout would answer them.
    await control.cutInstancePostgres(VICTIM);
    const heldFromMs = onVictim.now();
    await delay(HOLD_MS);
    // The control process signals the victim at `signalledAtEpochMs` and answers once it is gone.
    // One sent before the call returned may have reached the victim, been charged, and never been
    // answered.
    const { signalledAtEpochMs } = await control.killInstance(VICTIM);
    const killDoneAtMs = onVictim.now();
    await control.restoreInstancePostgres(VICTIM);
    expect(signalledAtEpochMs).not.toBeNull();
    const killSentAtMs = onVictim.fromEpoch(signalledAtEpochMs ?? 0);
    expect(killSentAtMs - heldFromMs).toBeLessThan(cluster().dbTimeoutMs);
    const victimSamples = await onVictim.stop();
    await delay(1000);
    const otherSamples = await everywhere.stop();

    const victimStatuses = countStatuses(victimSamples.map((sample) => sample.answer));
    const unanswered = victimSamples.filter((sample) => sample.answer.status === 0);
    // Surely in flight when the process died: sent before the kill was, never answered. Every
    // worker's request was held since the cut, so all 20 are.
    const cutShort = unanswered.filter((sample) => sample.sentAtMs < killSentAtMs).length;
    // Possibly charged without an answer: sent before the process was known to be gone. Later
    // sends were refused at connect and never reached a server.
    const maybeCharged = unanswered.filter((sample) => sample.sentAtMs < killDoneAtMs).length;
    const survivors = otherSamples.filter((sample) => sample.instance !== VICTIM);
    console.log(
      `[instance-kill] victim: ${JSON.stringify(victimStatuses)} (${cutShort} cut short by the kill, ${maybeCharged - cutShort} more sent while it landed); ` +
        `the other instances: ${JSON.stringify(countStatuses(survivors.map((sample) => sample.answer)))}`,
    );
    expect(cutShort).toBeGreaterThanOrEqual(VICTIM_WORKERS);
    expect(countStatuses(survivors.map((sample) => sample.answer))).toEqual({ 200: survivors.length });

    // Charged with a record or neither: the balance moved by exactly the 200 records' credits.
    const ledger = await readLedger(key.id);
    const spent = ledger.creditsGranted - ledger.creditsRemaining;
    expect(spent).toBe(sumCharged(ledger.usage, (row) => row.status === 200));
    expect(sumCharged(ledger.usage, (row) => row.status !== 200)).toBe(0);
    expect(ledger.usage.filter((row) => row.status === 102)).toEqual([]);
    // Every 200 a client saw has its record; unanswered requests that may have reached the victim
    // may or may not have one.
    const seen200 = [...victimSamples, ...otherSamples].filter((sample) => sample.answer.status === 200).length;
    const recorded200 = ledger.usage.filter((row) => row.status === 200).length;
    expect(recorded200).toBeGreaterThanOrEqual(seen200);
    expect(recorded200).toBeLessThanOrEqual(seen200 + maybeCharged);

    // The instance comes back and serves the same key.
    await control.startInstance(VICTIM);
    await ensureWholeCluster();
  });
});
