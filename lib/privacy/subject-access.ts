import type { Queryable } from "@/lib/db/client";
import { kindsOf, registry, type Registry } from "@/lib/operations";
import { kindIn, kindsListing, type RecordKind } from "@/lib/records/kinds";
import { batchPagesHolding } from "./batch-pages";
import { entrySubjectSql } from "./listed-subjects";
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
type OwnerRow = { source: string; fetched_at: Date | string; node_id?: string | null; count: number };

const entriesOf = async (db: Queryable, table: string, column: string, owner: string) =>
  listed(
    (
      await db.query<RecordRow>(`SELECT record::text AS record FROM ${table} WHERE ${column} = $1 ORDER BY position LIMIT $2`, [
        owner,
        MAX_ITEMS + 1,
      ])
    ).map((row): unknown => JSON.parse(row.record)),
  );

const ownerOf = (row: OwnerRow) => ({ source: row.source, fetchedAt: new Date(row.fetched_at).toISOString(), count: Number(row.count) });

/**
 * The subject's own stored record, under its kind's name (lib/records/kinds.ts `access`): a
 * single record with its source and age, or a list's head (with the node id where the kind keeps
 * one) and its entries. Tables and columns come from the kinds table only.
 */
const recordsOf = async (db: Queryable, { kind: subjectKind, subject }: Subject, kinds: readonly RecordKind[]): Promise<Record<string, unknown>> => {
  const kind = kindIn(kinds, subjectKind);
  const { owners, idColumn, entries, nodeIdColumn } = kind.tables;
  if (entries === undefined) {
    const rows = await db.query<RecordRow & OwnerRow>(
      `SELECT record::text AS record, source, fetched_at, 1 AS count FROM ${owners} WHERE ${idColumn} = $1`,
      [subject],
    );
    const row = rows[0];
    return row ? { [kind.access]: { source: row.source, fetchedAt: new Date(row.fetched_at).toISOString(), record: JSON.parse(row.record) as unknown } } : {};
  }
  const nodeId = nodeIdColumn === undefined ? "" : `, ${nodeIdColumn} AS node_id`;
  const rows = await db.query<OwnerRow>(`SELECT source, fetched_at${nodeId}, ${entries.countColumn} AS count FROM ${owners} WHERE ${idColumn} = $1`, [subject]);
  const row = rows[0];
  if (!row) return {};
  return {
    [kind.access]: {
      ...ownerOf(row),
      ...(nodeIdColumn === undefined ? {} : { nodeId: row.node_id }),
      [entries.field]: await entriesOf(db, entries.table, entries.ownerColumn, subject),
    },
  };
};

type ListedEntry = { owner: string; position: number; record: string };

/** The entries naming the subject in other subjects' lists, each with its list's id under the list kind's file name. */
const followerListsOf = async (db: Queryable, subject: Subject, kinds: readonly RecordKind[]) => {
  const found: Record<string, unknown>[] = [];
  for (const list of kindsListing(subject.kind, kinds)) {
    const entries = list.tables.entries;
    if (entries?.subjects === undefined) continue;
    const rows = await db.query<ListedEntry>(
      `SELECT ${entries.ownerColumn} AS owner, position, record::text AS record FROM ${entries.table}
       WHERE ${entrySubjectSql(entries.subjects.path)} = $1 ORDER BY ${entries.ownerColumn}, position LIMIT $2`,
      [subject.subject, MAX_ITEMS + 1],
    );
    found.push(...rows.map((row) => ({ [list.file.idField]: row.owner, position: row.position, entry: JSON.parse(row.record) as unknown })));
  }
  return listed(found);
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

const requestLogOf = async (db: Queryable, subject: Subject, operations: Registry) => {
  const rows = await db.query<UsageRow>(
    `SELECT request_id, key_id, operation, status, credits_charged, params_summary, created_at FROM usage_events
     WHERE operation = ANY($1::text[]) AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS n(needle) WHERE strpos(params_summary, n.needle) > 0)
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    // The text match may also find longer ids (filtered out below): read a margin beyond the cap.
    [operationsNaming(subject.kind, operations).map((operation) => operation.id), namesOf(subject, operations), 2 * MAX_ITEMS],
  );
  return listed(
    rows
      .filter((row) => textNames(row.params_summary, subject, operations))
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

export const subjectAccess = async (db: Queryable, subject: Subject, now: Date = new Date(), operations: Registry = registry) => {
  const kinds = kindsOf(operations);
  const suppressed = await db.query("SELECT 1 FROM suppressions WHERE kind = $1 AND subject = $2", [subject.kind, subject.subject]);
  const batchPages = await batchPagesHolding(db, subject, operations);
  return {
    subject,
    generatedAt: now.toISOString(),
    suppressed: suppressed.length > 0,
    records: await recordsOf(db, subject, kinds),
    followerLists: await followerListsOf(db, subject, kinds),
    batchResults: listed(batchPages.map(({ batchId, position, page, operation, query, data, holds }) => ({ batchId, position, page, operation, query, holds, data }))),
    requestLog: await requestLogOf(db, subject, operations),
  };
};

export type SubjectAccessDocument = Awaited<ReturnType<typeof subjectAccess>>;
