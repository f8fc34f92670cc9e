import type { Queryable } from "@/lib/database";
import type { InstanceIdentity } from "./identity";
import { SNAPSHOT_EVERY_MS } from "./publisher";
import { readSnapshot } from "./snapshot-schema";
import type { InstanceView, SystemView } from "./view";

/**
 * The instances the system page shows (GET /api/admin/system): those whose snapshot is at most
 * LIVE_WITHIN_S old, and those gone more recently than STALE_SHOWN_FOR_S, marked stale. Ages are
 * the database's clock against itself: instances' clocks never enter.
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

/** Live ones by name (then the newest start), then the stale ones, most recently seen first. */
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
  const instances = rows.map((row): InstanceView => {
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
