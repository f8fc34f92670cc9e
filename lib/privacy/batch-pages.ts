import type { Queryable } from "@/lib/db/client";
import { followersOf } from "@/lib/operations/batch-shapes";
import { kindsOf, operationById, registry, type Registry } from "@/lib/operations";
import { kindsListing } from "@/lib/records/kinds";
import { namesOf, operationsNaming, textNames, type Subject } from "./subjects";

/**
 * Batch result pages that hold a subject: pages whose input names it ("names": the whole page is
 * the subject's), and follower pages listing a suppressed pin-board user among other users'
 * followers ("lists": that entry is the subject's).
 */
export type HeldPage = {
  batchId: string;
  position: number;
  page: number;
  operation: string;
  query: string;
  data: unknown;
  holds: "names" | "lists";
};

type ItemRow = { batch_id: string; position: number; page: number; operation: string; query: string; data: string };

/** The query's values as text (stored URL-encoded), so a URN or a node id reads as itself. */
const queryText = (query: string) => [...new URLSearchParams(query).values()].join(" ");

const listsEntity = (data: unknown, entityId: string) =>
  followersOf(data)?.followers.some((entry) => entry.node.entityId === entityId) ?? false;

export const batchPagesHolding = async (db: Queryable, subject: Subject, registered: Registry = registry): Promise<HeldPage[]> => {
  const operations = operationsNaming(subject.kind, registered).map((operation) => operation.id);
  const listed = kindsListing(subject.kind, kindsOf(registered)).length > 0;
  const needles = namesOf(subject, registered).flatMap((name) => [name, encodeURIComponent(name)]);
  // A cheap text match narrows the pages; each is then read as what it is.
  const rows = await db.query<ItemRow>(
    `SELECT i.batch_id, i.position, i.page, b.operation, i.query, i.data FROM batch_items i JOIN batches b ON b.id = i.batch_id
     WHERE b.operation = ANY($1::text[]) AND i.data IS NOT NULL
       AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS n(needle) WHERE strpos(i.data, n.needle) > 0 OR strpos(i.query, n.needle) > 0)
     ORDER BY i.batch_id, i.position, i.page`,
    [operations, needles],
  );
  return rows.flatMap((row): HeldPage[] => {
    const data: unknown = JSON.parse(row.data);
    const base = { batchId: row.batch_id, position: row.position, page: row.page, operation: row.operation, query: row.query, data };
    if (textNames(queryText(row.query), subject, registered)) return [{ ...base, holds: "names" }];
    if (listed && listsEntity(data, subject.subject)) return [{ ...base, holds: "lists" }];
    return [];
  });
};

/** The page without the subject's entry: its data one follower shorter, its summary recomputed. */
const withoutEntity = (held: HeldPage, entityId: string, operations: Registry): { data: string; summary: string } => {
  const page = followersOf(held.data);
  const data = page ? { ...page, followers: page.followers.filter((entry) => entry.node.entityId !== entityId) } : held.data;
  return { data: JSON.stringify(data), summary: operationById(held.operation, operations)?.batch?.summary(data) ?? "" };
};

/** Erases the subject from batch results: a page naming it loses its data, a follower page the entry. */
export const eraseFromBatchPages = async (tx: Queryable, subject: Subject, operations: Registry = registry): Promise<number> => {
  const held = await batchPagesHolding(tx, subject, operations);
  for (const page of held) {
    const replacement = page.holds === "names" ? { data: null, summary: "removed: the subject is suppressed" } : withoutEntity(page, subject.subject, operations);
    await tx.query("UPDATE batch_items SET data = $4, summary = $5 WHERE batch_id = $1 AND position = $2 AND page = $3", [
      page.batchId,
      page.position,
      page.page,
      replacement.data,
      replacement.summary,
    ]);
  }
  return held.length;
};
