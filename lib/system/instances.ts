import type { Queryable } from "@/lib/database";
import type { InstanceIdentity } from "./identity";
import { SNAPSHOT_EVERY_MS } from "./publisher";
import { readSnapshot } from "./snapshot-schema";
import type { InstanceView, SystemView } from "./view";

/**
 * The instances the system page shows (GET /api/admin/system): those whose snapshot is at most
 * LIVE_WITHIN_S old, and those gone more recently than STALE_SHOWN_FOR_S, marked stale. Ages are
 * the database's clock against itself: instances' clocks never enter.
 *
 * One card per instance name (INSTANCE_ID, or host:port): each start of an instance writes a row
 * of its own, and a restart's row replaces the rows of the starts before it (the latest start
 * is shown, live or gone), so a restarted instance is never listed twice.
 */
export const LIVE_WITHIN_S = 30;
export const STALE_SHOWN_FOR_S = 15 * 60;

type Row = {
  instance: string;
  start_id: string;
  version: string;
  node_version: string;
  started_at: Date | string;
  seen_at: Date | string;
  seen_ago_s: number | string;
  snapshot: unknown;
};

const iso = (moment: Date | string): string => new Date(moment).toISOString();

const msOf = (moment: Date | string): number => new Date(moment).getTime();

/** Per instance name, its latest start (then its latest snapshot): the earlier starts were replaced by a restart. */
export const latestStarts = <R extends Pick<Row, "instance" | "started_at" | "seen_at">>(rows: readonly R[]): R[] => {
  const latest = new Map<string, R>();
  for (const row of rows) {
    const kept = latest.get(row.instance);
    const newer =
      kept === undefined ||
      msOf(row.started_at) > msOf(kept.started_at) ||
      (msOf(row.started_at) === msOf(kept.started_at) && msOf(row.seen_at) > msOf(kept.seen_at));
    if (newer) latest.set(row.instance, row);
  }
  return [...latest.values()];
};

/** Live ones by name, then the stale ones, most recently seen first. */
const byLiveThenName = (a: InstanceView, b: InstanceView): number => {
  if (a.stale !== b.stale) return a.stale ? 1 : -1;
  if (!a.stale && a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.seenAgoS - b.seenAgoS || b.startedAt.localeCompare(a.startedAt);
};

export const listInstances = async (db: Queryable, current: Pick<InstanceIdentity, "name" | "startId">): Promise<SystemView> => {
  const rows = await db.query<Row>(
    `SELECT instance, start_id, version, node_version, started_at, seen_at,
            GREATEST(0, EXTRACT(EPOCH FROM now() - seen_at))::float8 AS seen_ago_s, snapshot
     FROM service_instances
     WHERE seen_at > now() - $1::integer * interval '1 second'`,
    [STALE_SHOWN_FOR_S],
  );
  const instances = latestStarts(rows).map((row): InstanceView => {
    const seenAgoS = Number(row.seen_ago_s);
    return {
      name: row.instance,
      startId: row.start_id,
      version: row.version,
      nodeVersion: row.node_version,
      startedAt: iso(row.started_at),
      seenAt: iso(row.seen_at),
      seenAgoS: Math.round(seenAgoS * 10) / 10,
      stale: seenAgoS > LIVE_WITHIN_S,
      current: row.instance === current.name && row.start_id === current.startId,
      snapshot: readSnapshot(row.snapshot),
    };
  });
  instances.sort(byLiveThenName);
  return { instances, liveWithinS: LIVE_WITHIN_S, staleShownForS: STALE_SHOWN_FOR_S, snapshotEveryS: SNAPSHOT_EVERY_MS / 1000 };
};
