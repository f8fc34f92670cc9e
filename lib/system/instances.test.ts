import { describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics/registry";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import type { InstanceIdentity } from "./identity";
import { LIVE_WITHIN_S, listInstances } from "./instances";
import { FORGET_AFTER_S, newPublisherState, publishSnapshot, type PublishDeps } from "./publisher";

/**
 * The system page's table on both databases: each instance upserts its row, any instance reads
 * them all, the gone ones are marked stale, then forgotten after a day.
 */
const identity = (name: string, startId: string, startedAgoMs = 60_000): InstanceIdentity => ({
  name,
  startId,
  startedAtMs: Date.now() - startedAgoMs,
  version: "9.9.9",
  buildId: null,
  nodeVersion: process.version,
});

describe.each(await testDatabases())("service_instances on $name", (database) => {
  const db = openForSuite(database);
  const deps = (who: InstanceIdentity, overrides: Partial<PublishDeps> = {}): PublishDeps => ({
    db: async () => db(),
    identity: who,
    metricsMode: "on",
    registry: metrics().registry,
    refresh: async () => undefined,
    readiness: async () => ({ ready: true, checks: [{ name: "database", ok: true, detail: "answers" }] }),
    now: Date.now,
    ...overrides,
  });
  const backdate = (who: InstanceIdentity, seconds: number) =>
    db().query("UPDATE service_instances SET seen_at = now() - $3::integer * interval '1 second' WHERE instance = $1 AND start_id = $2", [
      who.name,
      who.startId,
      seconds,
    ]);

  it("holds one row per instance start, updated in place, with the figures of the latest snapshot", async () => {
    const a = identity("host-a:3000", "aaaa0001");
    const state = newPublisherState();
    await publishSnapshot(deps(a), state);
    metrics().requests.inc({ channel: "api", operation: "followers", status: "200" }, 25);
    await publishSnapshot(deps(a), state);
    const view = await listInstances(db(), a);
    const mine = view.instances.filter((instance) => instance.name === a.name);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ startId: a.startId, version: "9.9.9", stale: false, current: true });
    expect(mine[0]?.snapshot?.readiness).toEqual({ ready: true, checks: [{ name: "database", ok: true, detail: "answers" }] });
    expect(mine[0]?.snapshot?.figures?.requestsTotal).toBeGreaterThanOrEqual(25);
    expect(mine[0]?.snapshot?.database).toBe(db().kind);
    expect(view).toMatchObject({ liveWithinS: LIVE_WITHIN_S, snapshotEveryS: 5 });
  });

  it("shows every instance to each of them, and marks one unseen for 30 s stale, after the live ones", async () => {
    const b = identity("host-b:3000", "bbbb0001");
    const gone = identity("host-g:3000", "gggg0000");
    await publishSnapshot(deps(gone), newPublisherState());
    await backdate(gone, LIVE_WITHIN_S + 5);
    await publishSnapshot(deps(b), newPublisherState());
    const fromA = await listInstances(db(), identity("host-a:3000", "aaaa0001"));
    const names = fromA.instances.map((instance) => `${instance.name}/${instance.startId}${instance.stale ? " stale" : ""}`);
    expect(names).toEqual(["host-a:3000/aaaa0001", "host-b:3000/bbbb0001", "host-g:3000/gggg0000 stale"]);
    expect(fromA.instances.find((instance) => instance.startId === b.startId)?.current).toBe(false);
    expect(fromA.instances.at(-1)?.seenAgoS).toBeGreaterThanOrEqual(LIVE_WITHIN_S + 5);
  });

  it("shows a restarted instance once: its new start replaces the old one's card at once, still live or gone", async () => {
    const before = identity("app-7", "7777aaaa", 120_000);
    const restarted = identity("app-7", "7777bbbb", 1_000);
    await publishSnapshot(deps(before), newPublisherState());
    // Its last snapshot a moment ago: by its age alone the old start would still count as live.
    await backdate(before, 3);
    await publishSnapshot(deps(restarted), newPublisherState());
    const view = await listInstances(db(), restarted);
    const cards = view.instances.filter((instance) => instance.name === "app-7");
    expect(cards.map((instance) => `${instance.startId}${instance.stale ? " stale" : ""}${instance.current ? " current" : ""}`)).toEqual(["7777bbbb current"]);
    // The new start gone too: the card is its, marked gone; the older start stays replaced.
    await backdate(restarted, LIVE_WITHIN_S + 5);
    const later = (await listInstances(db(), identity("x", "y"))).instances.filter((instance) => instance.name === "app-7");
    expect(later.map((instance) => `${instance.startId}${instance.stale ? " stale" : ""}`)).toEqual(["7777bbbb stale"]);
  });

  it("leaves out instances gone for longer than the page shows, and deletes those unseen for a day", async () => {
    const old = identity("host-c:3000", "cccc0000");
    await publishSnapshot(deps(old), newPublisherState());
    await backdate(old, 3600);
    expect((await listInstances(db(), old)).instances.some((instance) => instance.name === old.name)).toBe(false);
    await backdate(old, FORGET_AFTER_S + 60);
    await publishSnapshot(deps(identity("host-d:3000", "dddd0001")), newPublisherState());
    const rows = await db().query<{ instance: string }>("SELECT instance FROM service_instances WHERE instance = $1", [old.name]);
    expect(rows).toEqual([]);
  });

  it("keeps a check with nothing to check apart from a passing one (no Redis configured), and reads older rows without the mark", async () => {
    const h = identity("host-h:3000", "hhhh0001");
    const checks = [
      { name: "database", ok: true, detail: "answered in 1 ms", configured: true },
      { name: "redis", ok: true, detail: "not configured", configured: false },
    ];
    await publishSnapshot(deps(h, { readiness: async () => ({ ready: true, checks }) }), newPublisherState());
    const row = (await listInstances(db(), h)).instances.find((instance) => instance.current);
    expect(row?.snapshot?.readiness?.checks).toEqual(checks);
    await db().query(
      `INSERT INTO service_instances (instance, start_id, version, node_version, started_at, snapshot)
       VALUES ('host-i:3000', 'iiii0001', '9.9.8', 'v22.0.0', now(), $1::json)`,
      [JSON.stringify({ ...row?.snapshot, readiness: { ready: true, checks: [{ name: "redis", ok: true, detail: "not configured" }] } })],
    );
    const older = (await listInstances(db(), h)).instances.find((instance) => instance.name === "host-i:3000");
    expect(older?.snapshot?.readiness?.checks).toEqual([{ name: "redis", ok: true, detail: "not configured" }]);
  });

  it("reports readiness it could not check, and no figures with METRICS=off", async () => {
    const e = identity("host-e:3000", "eeee0001");
    await publishSnapshot(deps(e, { metricsMode: "off", readiness: () => Promise.reject(new Error("database closed")) }), newPublisherState());
    const row = (await listInstances(db(), e)).instances.find((instance) => instance.current);
    expect(row?.snapshot).toMatchObject({ metrics: "off", figures: null, readiness: null, readinessError: "failed (Error)" });
  });

  it("shows a row whose snapshot this version cannot read, without figures", async () => {
    await db().query(
      `INSERT INTO service_instances (instance, start_id, version, node_version, started_at, snapshot)
       VALUES ('host-f:3000', 'ffff0001', '10.0.0', 'v26.0.0', now(), '{"format": 2, "everything": "new"}')`,
    );
    const row = (await listInstances(db(), identity("x", "y"))).instances.find((instance) => instance.name === "host-f:3000");
    expect(row).toMatchObject({ version: "10.0.0", stale: false, snapshot: null });
  });
});
