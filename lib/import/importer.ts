import fs from "node:fs";
import path from "node:path";
import type { EventRecord } from "@/lib/records/records";
import {
  eventJson,
  followerJson,
  publicationJson,
  upsertEvents,
  upsertFollowerList,
  upsertPublicationList,
} from "@/lib/connectors/store-records";
import type { Db, Queryable } from "@/lib/db/client";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import { screenSuppressed } from "@/lib/privacy/import-screen";
import type { SubjectKind } from "@/lib/records/subject-kinds";
import { detectFormat, readItems, type FileFormat } from "./read-items";
import { classifyRecord, type ImportRecord } from "./records";

/**
 * Imports snapshot files into the record store through the record writers (store-records.ts).
 * Streams: values are read one at a time and written in batches of bounded size, each batch in
 * one transaction. Idempotent: a record identical to the stored one (same canonical text) is left
 * alone, its source and fetched_at included, so importing a file twice — or an export of this
 * store — changes nothing. `source` labels the records that are written (new or changed).
 * Bad values are reported with their line and skipped; with `strict`, every file is checked
 * first and nothing is written unless all of it is good.
 */
export const IMPORT_SOURCE = "import";

// Entries (events, followers, publications) per write transaction; a bigger list goes alone.
const BATCH_ENTRIES = 5000;
const COMPARE_PAGE = 5000;
export const MAX_REPORTED_PROBLEMS = 1000;

type ImportProblem = { file: string; line: number; message: string };

type ImportCounts = {
  /** Good records read (written or unchanged). */
  records: number;
  written: number;
  unchanged: number;
  /** Bad values skipped (or, with strict, found). */
  skipped: number;
  events: number;
  followerLists: number;
  followers: number;
  publicationLists: number;
  publications: number;
};

export type ImportReport = ImportCounts & {
  /** strict and a bad value was found: nothing was written. */
  aborted: boolean;
  /** The first MAX_REPORTED_PROBLEMS problems; `skipped` counts them all. */
  problems: ImportProblem[];
};

export type ImportProgress = ImportCounts & {
  phase: "checking" | "importing";
  file: string;
  bytesRead: number;
  bytesTotal: number;
};

type ImportInput = { path: string; name?: string; format?: FileFormat };

type ImportOptions = {
  strict?: boolean;
  source?: string;
  onProblem?: (problem: ImportProblem) => void;
  onProgress?: (progress: ImportProgress) => void;
  /** A longer record (NDJSON line, array element) is one bad record: IMPORT_MAX_RECORD_BYTES. */
  maxRecordBytes?: number;
};

const emptyCounts = (): ImportCounts => ({
  records: 0,
  written: 0,
  unchanged: 0,
  skipped: 0,
  events: 0,
  followerLists: 0,
  followers: 0,
  publicationLists: 0,
  publications: 0,
});

const weight = (record: ImportRecord): number =>
  record.kind === "event" ? 1 : record.kind === "followers" ? record.list.followers.length + 1 : record.list.publications.length + 1;

/** Events that differ from the stored ones; the last copy of an id wins. */
const changedEvents = async (db: Queryable, events: EventRecord[]): Promise<EventRecord[]> => {
  const byId = new Map<string, EventRecord>();
  for (const event of events) byId.set(event.event_id, event);
  const stored = await db.query<{ event_id: string; record: string }>(
    "SELECT event_id, record::text AS record FROM events WHERE event_id = ANY($1::text[])",
    [[...byId.keys()]],
  );
  const storedById = new Map(stored.map((row) => [row.event_id, row]));
  return [...byId.values()].filter((event) => {
    const row = storedById.get(event.event_id);
    return !row || row.record !== eventJson(event);
  });
};

/** Where a list of one kind is stored: its owners' table (with the count) and its entries' table. */
type ListTables = { owners: "pin_users" | "profiles"; countColumn: "follower_count" | "publication_count"; entries: "pin_followers" | "publications"; ownerColumn: "user_id" | "urn" };

/** Whether a stored list already holds exactly these records (compared page by page). */
const sameList = async (
  db: Queryable,
  target: ListTables,
  owner: string,
  records: { length: number; at(index: number): string },
): Promise<boolean> => {
  const heads = await db.query<{ count: number }>(
    `SELECT ${target.countColumn} AS count FROM ${target.owners} WHERE ${target.ownerColumn} = $1`,
    [owner],
  );
  const head = heads[0];
  if (!head || head.count !== records.length) return false;
  for (let start = 0; start < records.length; start += COMPARE_PAGE) {
    const rows = await db.query<{ record: string }>(
      `SELECT record::text AS record FROM ${target.entries} WHERE ${target.ownerColumn} = $1 AND position >= $2 AND position < $3 ORDER BY position`,
      [owner, start, start + COMPARE_PAGE],
    );
    const expected = Math.min(COMPARE_PAGE, records.length - start);
    if (rows.length !== expected) return false;
    for (let index = 0; index < rows.length; index += 1) {
      if (rows[index]?.record !== records.at(start + index)) return false;
    }
  }
  return true;
};

/** Canonical texts computed on demand, so comparing a huge list does not build them all at once. */
const lazyTexts = <Entry>(entries: readonly Entry[], toJson: (entry: Entry) => string) => ({
  length: entries.length,
  at: (index: number): string => {
    const entry = entries[index];
    return entry === undefined ? "" : toJson(entry);
  },
});

const FOLLOWER_TABLES: ListTables = { owners: "pin_users", countColumn: "follower_count", entries: "pin_followers", ownerColumn: "user_id" };
const PUBLICATION_TABLES: ListTables = { owners: "profiles", countColumn: "publication_count", entries: "publications", ownerColumn: "urn" };

type ListWrite = { tables: ListTables; owner: string; texts: ReturnType<typeof lazyTexts>; upsert(tx: Queryable): Promise<unknown> };

/** How a follower or publication list is compared with the stored one and written; null for an event. */
const listWrite = (record: ImportRecord, source: string): ListWrite | null => {
  if (record.kind === "event") return null;
  if (record.kind === "followers") {
    const { list } = record;
    return { tables: FOLLOWER_TABLES, owner: list.userid, texts: lazyTexts(list.followers, followerJson), upsert: (tx) => upsertFollowerList(tx, list, source) };
  }
  const { list } = record;
  return { tables: PUBLICATION_TABLES, owner: list.urn, texts: lazyTexts(list.publications, publicationJson), upsert: (tx) => upsertPublicationList(tx, list, source) };
};

const writeBatch = async (db: Db, batch: ImportRecord[], source: string, counts: ImportCounts): Promise<void> => {
  await db.transaction(async (tx) => {
    const events = batch.flatMap((record) => (record.kind === "event" ? [record.event] : []));
    if (events.length > 0) {
      const distinct = new Set(events.map((event) => event.event_id)).size;
      const changed = await changedEvents(tx, events);
      if (changed.length > 0) await upsertEvents(tx, changed, source);
      counts.written += changed.length;
      counts.unchanged += distinct - changed.length;
      // Repeated ids inside one batch count once as written or unchanged, the rest as unchanged.
      counts.unchanged += events.length - distinct;
    }
    for (const record of batch) {
      const list = listWrite(record, source);
      if (list === null) continue;
      if (await sameList(tx, list.tables, list.owner, list.texts)) counts.unchanged += 1;
      else {
        await list.upsert(tx);
        counts.written += 1;
      }
    }
  });
};

const countRecord = (counts: ImportCounts, record: ImportRecord) => {
  counts.records += 1;
  if (record.kind === "event") counts.events += 1;
  else if (record.kind === "followers") {
    counts.followerLists += 1;
    counts.followers += record.list.followers.length;
  } else {
    counts.publicationLists += 1;
    counts.publications += record.list.publications.length;
  }
};

/** One pass over the files: checks every value, and writes the good ones unless `write` is false. */
const pass = async (
  db: Db | null,
  inputs: readonly ImportInput[],
  options: ImportOptions & { phase: ImportProgress["phase"]; suppressed: ReadonlyMap<SubjectKind, ReadonlySet<string>> },
  report: ImportReport,
): Promise<void> => {
  const source = options.source ?? IMPORT_SOURCE;
  for (const input of inputs) {
    const name = input.name ?? input.path;
    const format = input.format ?? (await detectFormat(input.path, name));
    const bytesTotal = (await fs.promises.stat(input.path)).size;
    let bytesRead = 0;
    const progress = () =>
      options.onProgress?.({ ...pick(report), phase: options.phase, file: path.basename(name), bytesRead, bytesTotal });

    let batch: ImportRecord[] = [];
    let batchWeight = 0;
    const flush = async () => {
      if (db && batch.length > 0) await writeBatch(db, batch, source, report);
      batch = [];
      batchWeight = 0;
    };

    for await (const item of readItems(input.path, {
      format,
      maxRecordBytes: options.maxRecordBytes,
      onBytes: (read) => (bytesRead = read),
    })) {
      const classified = "error" in item ? { ok: false as const, message: item.error } : classifyRecord(item.value);
      const screened = classified.ok ? screenSuppressed(classified.record, options.suppressed) : { record: null, problems: [classified.message] };
      for (const message of screened.problems) {
        report.skipped += 1;
        const problem = { file: name, line: item.line, message };
        if (report.problems.length < MAX_REPORTED_PROBLEMS) report.problems.push(problem);
        options.onProblem?.(problem);
      }
      if (screened.record) {
        countRecord(report, screened.record);
        if (db) {
          batch.push(screened.record);
          batchWeight += weight(screened.record);
          if (batchWeight >= BATCH_ENTRIES) await flush();
        }
      }
      progress();
    }
    await flush();
    progress();
  }
};

const pick = (report: ImportReport): ImportCounts => ({
  records: report.records,
  written: report.written,
  unchanged: report.unchanged,
  skipped: report.skipped,
  events: report.events,
  followerLists: report.followerLists,
  followers: report.followers,
  publicationLists: report.publicationLists,
  publications: report.publications,
});

export const importFiles = async (db: Db, inputs: readonly ImportInput[], options: ImportOptions = {}): Promise<ImportReport> => {
  const report: ImportReport = { ...emptyCounts(), aborted: false, problems: [] };
  // Suppressed subjects (lib/privacy) are skipped and reported like bad records.
  const suppressed = await suppressedSubjects(db);
  if (options.strict) {
    await pass(null, inputs, { ...options, phase: "checking", suppressed }, report);
    if (report.skipped > 0) return { ...report, aborted: true };
    Object.assign(report, emptyCounts());
  }
  await pass(db, inputs, { ...options, phase: "importing", suppressed }, report);
  return report;
};
