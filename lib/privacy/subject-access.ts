import type { Queryable } from "@/lib/db/client";
import { batchPagesHolding } from "./batch-pages";
import { namesOf, operationsNaming, textNames, type Subject } from "./subjects";

/**
 * Subject access: everything held about a subject as one JSON document — its records (with
 * their source and age), the follower lists it appears in, batch result pages holding it and
 * request-log rows whose query names it. Each list stops at MAX_ITEMS (its `truncated` flag says
 * so): one request never reads without bound.
 */
export const MAX_ITEMS = 10_000;

type Listed<Item> = { items: Item[]; truncated: boolean };

const listed = <Item>(rows: Item[]): Listed<Item> => ({ items: rows.slice(0, MAX_ITEMS), truncated: rows.length > MAX_ITEMS });

type RecordRow = { record: string };
type OwnerRow = { source: string; fetched_at: Date | string; node_id?: string; count: number };

const entries = async (db: Queryable, table: "pin_followers" | "publications", column: "user_id" | "urn", owner: string) =>
  listed(
    (
      await db.query<RecordRow>(`SELECT record::text AS record FROM ${table} WHERE ${column} = $1 ORDER BY position LIMIT $2`, [
        owner,
        MAX_ITEMS + 1,
      ])
    ).map((row): unknown => JSON.parse(row.record)),
  );

const ownerOf = (row: OwnerRow | undefined) =>
  row ? { source: row.source, fetchedAt: new Date(row.fetched_at).toISOString(), count: Number(row.count) } : null;

const recordsOf = async (db: Queryable, { kind, subject }: Subject) => {
  switch (kind) {
    case "event": {
      const rows = await db.query<RecordRow & OwnerRow>("SELECT record::text AS record, source, fetched_at, 1 AS count FROM events WHERE event_id = $1", [subject]);
      const row = rows[0];
      return row ? { event: { source: row.source, fetchedAt: new Date(row.fetched_at).toISOString(), record: JSON.parse(row.record) as unknown } } : {};
    }
    case "pin_user": {
      const rows = await db.query<OwnerRow>("SELECT source, fetched_at, node_id, follower_count AS count FROM pin_users WHERE user_id = $1", [subject]);
      const owner = ownerOf(rows[0]);
      return owner ? { followerList: { ...owner, nodeId: rows[0]?.node_id, followers: await entries(db, "pin_followers", "user_id", subject) } } : {};
    }
    case "profile": {
      const rows = await db.query<OwnerRow>("SELECT source, fetched_at, publication_count AS count FROM profiles WHERE urn = $1", [subject]);
      const owner = ownerOf(rows[0]);
      return owner ? { publicationList: { ...owner, publications: await entries(db, "publications", "urn", subject) } } : {};
    }
  }
};

const followerListsOf = async (db: Queryable, subject: Subject) => {
  if (subject.kind !== "pin_user") return listed<{ userid: string; position: number; entry: unknown }>([]);
  const rows = await db.query<{ user_id: string; position: number; record: string }>(
    "SELECT user_id, position, record::text AS record FROM pin_followers WHERE record->'node'->>'entityId' = $1 ORDER BY user_id, position LIMIT $2",
    [subject.subject, MAX_ITEMS + 1],
  );
  return listed(rows.map((row) => ({ userid: row.user_id, position: row.position, entry: JSON.parse(row.record) as unknown })));
};

type UsageRow = {
  request_id: string;
  key_id: string;
  operation: string;
  status: number;
  credits_charged: number;
  params_summary: string;
  created_at: Date | string;
};

const requestLogOf = async (db: Queryable, subject: Subject) => {
  const rows = await db.query<UsageRow>(
    `SELECT request_id, key_id, operation, status, credits_charged, params_summary, created_at FROM usage_events
     WHERE operation = ANY($1::text[]) AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS n(needle) WHERE strpos(params_summary, n.needle) > 0)
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    // The text match may also find longer ids (filtered out below): read a margin beyond the cap.
    [operationsNaming(subject.kind).map((operation) => operation.id), namesOf(subject), 2 * MAX_ITEMS],
  );
  return listed(
    rows
      .filter((row) => textNames(row.params_summary, subject))
      .map((row) => ({
        requestId: row.request_id,
        keyId: row.key_id,
        operation: row.operation,
        status: Number(row.status),
        creditsCharged: Number(row.credits_charged),
        query: row.params_summary,
        createdAt: new Date(row.created_at).toISOString(),
      })),
  );
};

export const subjectAccess = async (db: Queryable, subject: Subject, now: Date = new Date()) => {
  const suppressed = await db.query("SELECT 1 FROM suppressions WHERE kind = $1 AND subject = $2", [subject.kind, subject.subject]);
  const batchPages = await batchPagesHolding(db, subject);
  return {
    subject,
    generatedAt: now.toISOString(),
    suppressed: suppressed.length > 0,
    records: await recordsOf(db, subject),
    followerLists: await followerListsOf(db, subject),
    batchResults: listed(batchPages.map(({ batchId, position, page, operation, query, data, holds }) => ({ batchId, position, page, operation, query, holds, data }))),
    requestLog: await requestLogOf(db, subject),
  };
};

export type SubjectAccessDocument = Awaited<ReturnType<typeof subjectAccess>>;
