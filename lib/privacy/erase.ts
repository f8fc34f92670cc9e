import type { Queryable } from "@/lib/db/client";
import { eraseFromBatchPages } from "./batch-pages";
import { storedSpellings } from "./spellings";
import type { Subject } from "./subjects";

/**
 * Deletes every stored record of a subject, inside the caller's transaction: the record store,
 * the upstream cache (its pages and cursors), batch result pages — and, for a pin-board user, its
 * entries in other users' follower lists — under every spelling of the subject the store holds
 * (lib/privacy/spellings.ts). Returns how many of each went (counts only: the audit log records
 * these, never the data).
 */
export type Erased = { records: number; cachePages: number; followerEntries: number; batchPages: number };

const count = async (tx: Queryable, sql: string, params: unknown[]): Promise<number> => (await tx.query(sql, params)).length;

/**
 * Removes a pin-board user from other users' follower lists. A list of the store keeps its order
 * with the gap closed (positions renumbered, the count one lower), so every page stays reachable
 * through offset cursors and is one entry shorter where it held the user. A list cached from the
 * provider is dropped instead: its pages map to the provider's own positions and are fetched again.
 */
const eraseFollowerEntries = async (tx: Queryable, entityIds: string[]): Promise<number> => {
  const removed = await tx.query<{ user_id: string; position: number }>(
    "DELETE FROM pin_followers WHERE record->'node'->>'entityId' = ANY($1::text[]) RETURNING user_id, position",
    [entityIds],
  );
  const byList = new Map<string, number[]>();
  for (const row of removed) byList.set(row.user_id, [...(byList.get(row.user_id) ?? []), row.position]);
  for (const [userId, positions] of byList) {
    const owner = await tx.query<{ source: string }>("SELECT source FROM pin_users WHERE user_id = $1 FOR UPDATE", [userId]);
    if (owner[0]?.source === "upstream") {
      await tx.query("DELETE FROM upstream_pages WHERE kind = 'followers' AND subject = $1", [userId]);
      await tx.query("DELETE FROM pin_users WHERE user_id = $1", [userId]);
      continue;
    }
    // Two steps through negative positions: one UPDATE moving rows down could collide with the key.
    await tx.query(
      `UPDATE pin_followers f SET position = -1 - (f.position - (SELECT count(*) FROM unnest($2::integer[]) AS r(gone) WHERE r.gone < f.position))::integer
       WHERE f.user_id = $1 AND f.position > $3`,
      [userId, positions, Math.min(...positions)],
    );
    await tx.query("UPDATE pin_followers SET position = -1 - position WHERE user_id = $1 AND position < 0", [userId]);
    await tx.query("UPDATE pin_users SET follower_count = GREATEST(0, follower_count - $2) WHERE user_id = $1", [userId, positions.length]);
  }
  return removed.length;
};

const CACHE_KIND = { event: "event", pin_user: "followers", profile: "publications" } as const;

const eraseRecords = async (tx: Queryable, kind: Subject["kind"], spellings: string[]): Promise<number> => {
  switch (kind) {
    case "event":
      return count(tx, "DELETE FROM events WHERE event_id = ANY($1::text[]) RETURNING event_id", [spellings]);
    case "pin_user":
      await tx.query("DELETE FROM upstream_cursors WHERE user_id = ANY($1::text[])", [spellings]);
      return count(tx, "DELETE FROM pin_users WHERE user_id = ANY($1::text[]) RETURNING user_id", [spellings]);
    case "profile":
      return count(tx, "DELETE FROM profiles WHERE urn = ANY($1::text[]) RETURNING urn", [spellings]);
  }
};

export const eraseSubject = async (tx: Queryable, subject: Subject): Promise<Erased> => {
  const spellings = await storedSpellings(tx, subject);
  const records = await eraseRecords(tx, subject.kind, spellings);
  const cachePages = await count(tx, "DELETE FROM upstream_pages WHERE kind = $1 AND subject = ANY($2::text[]) RETURNING page", [
    CACHE_KIND[subject.kind],
    spellings,
  ]);
  const followerEntries = subject.kind === "pin_user" ? await eraseFollowerEntries(tx, spellings) : 0;
  const batchPages = await eraseFromBatchPages(tx, subject);
  return { records, cachePages, followerEntries, batchPages };
};

/**
 * Erases again what reached the store after a suppression: an upstream answer that was already
 * in flight when the subject was suppressed, or a provider follower page listing a suppressed
 * user (cached lists holding one are dropped, to be fetched again). Set-based, for the periodic
 * sweep; returns how many records went.
 */
export const sweepSuppressed = async (db: Queryable): Promise<number> => {
  const statements = [
    "DELETE FROM events e USING suppressions s WHERE s.kind = 'event' AND s.subject = e.event_id RETURNING e.event_id",
    "DELETE FROM pin_users u USING suppressions s WHERE s.kind = 'pin_user' AND s.subject = u.user_id RETURNING u.user_id",
    "DELETE FROM profiles p USING suppressions s WHERE s.kind = 'profile' AND s.subject = p.urn RETURNING p.urn",
    `WITH gone AS (
       DELETE FROM pin_users u WHERE u.source = 'upstream' AND EXISTS (
         SELECT 1 FROM pin_followers f JOIN suppressions s ON s.kind = 'pin_user' AND s.subject = f.record->'node'->>'entityId'
         WHERE f.user_id = u.user_id)
       RETURNING u.user_id)
     DELETE FROM upstream_pages p USING gone WHERE p.kind = 'followers' AND p.subject = gone.user_id RETURNING gone.user_id`,
    `DELETE FROM upstream_pages p USING suppressions s WHERE s.subject = p.subject
       AND p.kind = CASE s.kind WHEN 'event' THEN 'event' WHEN 'pin_user' THEN 'followers' ELSE 'publications' END
     RETURNING p.subject`,
  ];
  let erased = 0;
  for (const sql of statements) erased += await count(db, sql, []);
  return erased;
};
