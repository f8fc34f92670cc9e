import fs from "node:fs";
import { resolveIn, type OperatorCommand } from "@/lib/cli/command";
import { CliFailure, EXIT, UsageError } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import { env } from "@/lib/env";
import { IMPORT_SOURCE, importFiles, MAX_REPORTED_PROBLEMS, type ImportReport } from "@/lib/import/importer";
import { createProgressLine } from "@/lib/import/progress";

const USAGE = `usage: npm run import -- FILE... [--strict] [--source NAME]
  FILE       NDJSON (one record per line) or JSON (an array of records, or one record)
             records: an Event; {userid, node_id?, followers: [...]}; {urn, publications: [...]}
  --strict   check every file first; write nothing if any record is bad
  --source   the source recorded with the records (default "${IMPORT_SOURCE}")
A record (an NDJSON line, an array element) larger than IMPORT_MAX_RECORD_BYTES (default 16 MiB)
or nested deeper than 64 levels is reported as a bad record and skipped.
With the embedded database (no DATABASE_URL) and the server running, the server imports the
files (it reads them by path, as the same user) on this command's behalf.
Exit codes: 0 all imported; 3 bad records skipped (the rest imported); 4 --strict and bad
records found (nothing written); 2 usage; 5 database in use and the server's socket unusable; 1 other failure.`;

const summary = (report: ImportReport, elapsedMs: number): string =>
  [
    `${report.records.toLocaleString("en-US")} records in ${(elapsedMs / 1000).toFixed(1)} s: ` +
      `${report.written.toLocaleString("en-US")} written, ${report.unchanged.toLocaleString("en-US")} unchanged, ` +
      `${report.skipped.toLocaleString("en-US")} bad ${report.skipped === 1 ? "value" : "values"} skipped`,
    `  events ${report.events}, follower lists ${report.followerLists} (${report.followers} followers), ` +
      `publication lists ${report.publicationLists} (${report.publications} publications)`,
  ].join("\n");

/** `npm run import -- …` (scripts/import.ts), here or in the running server (lib/cli/operator). */
export const importCommand: OperatorCommand = async (context) => {
  const { positionals, values } = parseCommandLine(
    USAGE,
    {
      strict: { type: "boolean", default: false },
      source: { type: "string" },
    },
    context.args,
  );
  if (positionals.length === 0) throw new UsageError("no FILE given", USAGE);
  const source = values.source?.trim() ?? IMPORT_SOURCE;
  if (!/^[a-z0-9_-]{1,40}$/i.test(source) || source === "upstream") {
    throw new UsageError('--source must be 1-40 letters, digits, - or _ (and not "upstream")', USAGE);
  }
  // Read where the caller stands; named in messages as the caller wrote them.
  const inputs = positionals.map((file) => ({ path: resolveIn(context, file), name: file }));
  for (const input of inputs) {
    if (!fs.existsSync(input.path) || !fs.statSync(input.path).isFile()) throw new UsageError(`no such file: ${input.name}`);
  }

  const startedAt = Date.now();
  const progress = createProgressLine(context.progress);
  let printed = 0;
  const report = await context.withDb((db) =>
    importFiles(db, inputs, {
      strict: values.strict,
      source,
      maxRecordBytes: env().IMPORT_MAX_RECORD_BYTES,
      onProgress: (state) => progress.update(state),
      onProblem: (problem) => {
        printed += 1;
        if (printed > MAX_REPORTED_PROBLEMS) return;
        progress.clear();
        context.err(`${problem.file}:${problem.line}: ${problem.message}`);
      },
    }),
  );
  progress.clear();
  if (printed > MAX_REPORTED_PROBLEMS) context.err(`… and ${printed - MAX_REPORTED_PROBLEMS} more bad values`);
  if (report.aborted) {
    throw new CliFailure(
      EXIT.strictRejected,
      `--strict: ${report.skipped} bad ${report.skipped === 1 ? "value" : "values"} found; nothing was written`,
    );
  }
  context.out(summary(report, Date.now() - startedAt));
  // A script must not mistake a partial import for a complete one.
  return report.skipped > 0 ? EXIT.skippedRecords : EXIT.ok;
};
