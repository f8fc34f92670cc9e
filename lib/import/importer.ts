import fs from "node:fs";
import path from "node:path";
import type { Db } from "@/lib/db/client";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import { screenSuppressed } from "@/lib/privacy/import-screen";
import { detectFormat, readItems, type FileFormat } from "./read-items";
import type { Registry } from "@/lib/operations";
import { importLines, importLinesOf, type ImportRecord } from "./lines";
import type { ImportCounts, ImportLine, LineRecord } from "./record-line";
import { classifierOf, classifyLine } from "./records";

type Classified = LineRecord<ImportRecord>;

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
export const MAX_REPORTED_PROBLEMS = 1000;

type ImportProblem = { file: string; line: number; message: string };

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
  /** The registry whose kinds of record are read (lib/import/lines.ts importLinesOf); the process's by default. */
  operations?: Registry;
};

/** How values are classified and written: the lines of the options' registry's kinds. */
type Lines = { lines: readonly ImportLine<ImportRecord>[]; classify: typeof classifyLine };

const linesFor = (operations: Registry | undefined): Lines => {
  if (operations === undefined) return { lines: importLines, classify: classifyLine };
  const lines = importLinesOf(operations);
  return { lines, classify: classifierOf(lines) };
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

/** Writes one batch in one transaction, kind by kind in the kinds table's order (lib/import/lines.ts). */
const writeBatch = async (db: Db, lines: Lines, batch: readonly Classified[], source: string, counts: ImportCounts): Promise<void> => {
  await db.transaction(async (tx) => {
    for (const line of lines.lines) await line.write(tx, batch, source, counts);
  });
};

/** The record as it may be stored: skipped or shorn of suppressed subjects (lib/privacy/import-screen.ts). */
const screened = (record: Classified, suppressed: ReadonlyMap<string, ReadonlySet<string>>): { record: Classified | null; problems: string[] } => {
  const screening = screenSuppressed(record, suppressed);
  if (screening.skipped) return { record: null, problems: screening.problems };
  return { record: screening.leftOut.size === 0 ? record : record.without(screening.leftOut), problems: screening.problems };
};

/** One pass over the files: checks every value, and writes the good ones unless `write` is false. */
const pass = async (
  db: Db | null,
  inputs: readonly ImportInput[],
  options: ImportOptions & { phase: ImportProgress["phase"]; suppressed: ReadonlyMap<string, ReadonlySet<string>> },
  report: ImportReport,
): Promise<void> => {
  const source = options.source ?? IMPORT_SOURCE;
  const lines = linesFor(options.operations);
  for (const input of inputs) {
    const name = input.name ?? input.path;
    const format = input.format ?? (await detectFormat(input.path, name));
    const bytesTotal = (await fs.promises.stat(input.path)).size;
    let bytesRead = 0;
    const progress = () =>
      options.onProgress?.({ ...pick(report), phase: options.phase, file: path.basename(name), bytesRead, bytesTotal });

    let batch: Classified[] = [];
    let batchWeight = 0;
    const flush = async () => {
      if (db && batch.length > 0) await writeBatch(db, lines, batch, source, report);
      batch = [];
      batchWeight = 0;
    };

    for await (const item of readItems(input.path, {
      format,
      maxRecordBytes: options.maxRecordBytes,
      onBytes: (read) => (bytesRead = read),
    })) {
      const classified = "error" in item ? { ok: false as const, message: item.error } : lines.classify(item.value);
      const kept = classified.ok ? screened(classified.value, options.suppressed) : { record: null, problems: [classified.message] };
      for (const message of kept.problems) {
        report.skipped += 1;
        const problem = { file: name, line: item.line, message };
        if (report.problems.length < MAX_REPORTED_PROBLEMS) report.problems.push(problem);
        options.onProblem?.(problem);
      }
      if (kept.record) {
        report.records += 1;
        kept.record.count(report);
        if (db) {
          batch.push(kept.record);
          batchWeight += kept.record.weight;
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
  const suppressed = await suppressedSubjects(db, options.operations);
  if (options.strict) {
    await pass(null, inputs, { ...options, phase: "checking", suppressed }, report);
    if (report.skipped > 0) return { ...report, aborted: true };
    Object.assign(report, emptyCounts());
  }
  await pass(db, inputs, { ...options, phase: "importing", suppressed }, report);
  return report;
};
