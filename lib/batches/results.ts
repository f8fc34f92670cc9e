import type { Queryable } from "@/lib/db/client";
import { csvLine, type CsvValue } from "@/lib/export/csv";
import type { BatchOperation } from "./operations";
import { itemsAfter, type ItemRow } from "./repository";

/**
 * A batch's results as files, produced chunk by chunk from the database (a page of lookups at a
 * time), so a 10,000-input batch is never held in memory whole:
 * - CSV: flattened, one row per event / follower / publication, the input and its outcome first;
 *   an input without records (not found, failed) has one row with the record columns empty.
 * - NDJSON: one line per input found, in the API's own shapes, as `npm run import` reads them.
 */
const CHUNK = 500;

/** The largest value of an integer column (positions, pages): "after everything". */
const INTEGER_MAX = 2_147_483_647;

async function* doneItems(db: Queryable, batchId: string, fromPosition = 0): AsyncGenerator<ItemRow> {
  let after = { position: fromPosition - 1, page: INTEGER_MAX };
  for (;;) {
    const rows = await itemsAfter(db, batchId, after, CHUNK, true);
    for (const row of rows) if (row.state === "done") yield row;
    const last = rows.at(-1);
    if (!last || rows.length < CHUNK) return;
    after = { position: last.position, page: last.page };
  }
}

const parseData = (row: ItemRow): unknown => {
  if (row.data === null) return null;
  try {
    return JSON.parse(row.data);
  } catch {
    return null;
  }
};

const outcomeColumns = ["input", "page", "status", "credits", "message"] as const;

export async function* csvChunks(db: Queryable, batchId: string, operation: BatchOperation): AsyncGenerator<string> {
  const columns = operation.batch.columns;
  yield csvLine([...outcomeColumns, ...columns]);
  let lines: string[] = [];
  for await (const row of doneItems(db, batchId)) {
    const lead: CsvValue[] = [row.input, row.page, row.http_status, row.credits_charged, row.message];
    const records = row.http_status === 200 ? operation.batch.rows(parseData(row)) : [];
    if (records.length === 0) lines.push(csvLine([...lead, ...columns.map(() => null)]));
    for (const record of records) lines.push(csvLine([...lead, ...columns.map((column) => record[column] ?? null)]));
    if (lines.length >= CHUNK) {
      yield lines.join("");
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join("");
}

/**
 * Where the NDJSON record at `offset` starts: the position of the offset-th input with a found
 * page (positions start at 1), found by the index instead of reading every record before it.
 * Past the last record: a position after every input.
 */
export const firstResultPosition = async (db: Queryable, batchId: string, offset: number): Promise<number> => {
  if (offset <= 0) return 0;
  const rows = await db.query<{ position: number }>(
    `SELECT DISTINCT position FROM batch_items WHERE batch_id = $1 AND state = 'done' AND http_status = 200
     ORDER BY position OFFSET $2 LIMIT 1`,
    [batchId, offset],
  );
  return rows[0]?.position ?? INTEGER_MAX;
};

/** One line per input found, from `fromPosition` on (firstResultPosition). */
export async function* ndjsonChunks(db: Queryable, batchId: string, operation: BatchOperation, fromPosition = 0): AsyncGenerator<string> {
  let current: { position: number; query: string; pages: unknown[] } | null = null;
  const flush = (): string | null => {
    if (current === null || current.pages.length === 0) return null;
    const record = operation.batch.exportRecord(new URLSearchParams(current.query), current.pages);
    return record === null ? null : `${JSON.stringify(record)}\n`;
  };
  let out: string[] = [];
  for await (const row of doneItems(db, batchId, fromPosition)) {
    if (current === null || current.position !== row.position) {
      const line = flush();
      if (line !== null) out.push(line);
      current = { position: row.position, query: row.query, pages: [] };
    }
    if (row.http_status === 200) current.pages.push(parseData(row));
    if (out.length >= CHUNK) {
      yield out.join("");
      out = [];
    }
  }
  const line = flush();
  if (line !== null) out.push(line);
  if (out.length > 0) yield out.join("");
}

/** An async generator of text as a byte stream for a Response body. */
/** The chunks, after `text` (nothing when it is empty). */
export async function* withLeading(text: string, chunks: AsyncGenerator<string>): AsyncGenerator<string> {
  if (text !== "") yield text;
  yield* chunks;
}

export const textStream = (chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
};
