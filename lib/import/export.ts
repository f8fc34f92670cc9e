import { once } from "node:events";
import type { Writable } from "node:stream";
import type { Queryable } from "@/lib/db/client";

/**
 * Writes the record store as NDJSON in the import's shapes, one record per line: an Event; a
 * follower list `{userid, node_id, followers}`; a publication list `{urn, publications}`. The
 * stored canonical text is written as it is, so importing the output stores the same text
 * (round trip). Keyset-paged reads and awaited writes: memory stays at one page, even for a
 * list of 200,000 followers (its line is written piece by piece).
 */
export type ExportKind = "events" | "followers" | "publications";

export const EXPORT_KINDS: readonly ExportKind[] = ["events", "followers", "publications"];

const EVENTS_PAGE = 1000;
const OWNERS_PAGE = 200;
const ENTRIES_PAGE = 5000;

const writer = (out: Writable) => async (text: string) => {
  if (!out.write(text)) await once(out, "drain");
};

type ListTarget = {
  owners: "pin_users" | "profiles";
  ownerColumn: "user_id" | "urn";
  entries: "pin_followers" | "publications";
  /** The line's opening up to the entries array, e.g. `{"userid":"1","node_id":"…","followers":[`. */
  opening(owner: { id: string; nodeId: string | null }): string;
};

const lists: Record<"followers" | "publications", ListTarget> = {
  followers: {
    owners: "pin_users",
    ownerColumn: "user_id",
    entries: "pin_followers",
    opening: (owner) => `{"userid":${JSON.stringify(owner.id)},"node_id":${JSON.stringify(owner.nodeId)},"followers":[`,
  },
  publications: {
    owners: "profiles",
    ownerColumn: "urn",
    entries: "publications",
    opening: (owner) => `{"urn":${JSON.stringify(owner.id)},"publications":[`,
  },
};

export const exportRecords = async (
  db: Queryable,
  kind: ExportKind,
  out: Writable,
  options: { source?: string; onRecord?: (records: number) => void } = {},
): Promise<{ records: number }> => {
  const write = writer(out);
  const source = options.source ?? null;
  let records = 0;

  if (kind === "events") {
    let after: string | null = null;
    for (;;) {
      const rows: { event_id: string; record: string }[] = await db.query(
        `SELECT event_id, record::text AS record FROM events
         WHERE ($1::text IS NULL OR event_id > $1) AND ($2::text IS NULL OR source = $2)
         ORDER BY event_id LIMIT $3`,
        [after, source, EVENTS_PAGE],
      );
      if (rows.length === 0) break;
      await write(rows.map((row) => `${row.record}\n`).join(""));
      records += rows.length;
      options.onRecord?.(records);
      after = rows.at(-1)?.event_id ?? null;
      if (rows.length < EVENTS_PAGE) break;
    }
    return { records };
  }

  const target = lists[kind];
  const nodeColumn = kind === "followers" ? "node_id" : "NULL::text";
  let after: string | null = null;
  for (;;) {
    const owners: { id: string; node_id: string | null }[] = await db.query(
      `SELECT ${target.ownerColumn} AS id, ${nodeColumn} AS node_id FROM ${target.owners}
       WHERE ($1::text IS NULL OR ${target.ownerColumn} > $1) AND ($2::text IS NULL OR source = $2)
       ORDER BY ${target.ownerColumn} LIMIT $3`,
      [after, source, OWNERS_PAGE],
    );
    if (owners.length === 0) break;
    for (const owner of owners) {
      await write(target.opening({ id: owner.id, nodeId: owner.node_id }));
      let position = -1;
      let first = true;
      for (;;) {
        const entries: { position: number; record: string }[] = await db.query(
          `SELECT position, record::text AS record FROM ${target.entries}
           WHERE ${target.ownerColumn} = $1 AND position > $2 ORDER BY position LIMIT $3`,
          [owner.id, position, ENTRIES_PAGE],
        );
        if (entries.length === 0) break;
        await write((first ? "" : ",") + entries.map((entry) => entry.record).join(","));
        first = false;
        position = entries.at(-1)?.position ?? position;
        if (entries.length < ENTRIES_PAGE) break;
      }
      await write("]}\n");
      records += 1;
      options.onRecord?.(records);
    }
    after = owners.at(-1)?.id ?? null;
    if (owners.length < OWNERS_PAGE) break;
  }
  return { records };
};
