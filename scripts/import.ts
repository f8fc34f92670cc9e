import fs from "node:fs";
import { env } from "@/lib/env";
import { CliFailure, EXIT, runCli, UsageError, withCliDb } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import { IMPORT_SOURCE, importFiles, MAX_REPORTED_PROBLEMS, type ImportReport } from "@/lib/import/importer";
import { createProgressLine } from "@/lib/import/progress";

const USAGE = `usage: npm run import -- FILE... [--strict] [--source NAME]
  FILE       NDJSON (one record per line) or JSON (an array of records, or one record)
             records: an Event; {userid, node_id?, followers: [...]}; {urn, publications: [...]}
  --strict   check every file first; write nothing if any record is bad
  --source   the source recorded with the records (default "${IMPORT_SOURCE}")
A record (an NDJSON line, an array element) larger than IMPORT_MAX_RECORD_BYTES (default 16 MiB)
or nested deeper than 64 levels is reported as a bad record and skipped.
With the embedded database (no DATABASE_URL) this cannot run while the server does:
use the admin Upload page then.
Exit codes: 0 all imported; 3 bad records skipped (the rest imported); 4 --strict and bad
records found (nothing written); 2 usage; 5 database in use by the server; 1 other failure.`;

const summary = (report: ImportReport, elapsedMs: number): string =>
  [
    `${report.records.toLocaleString("en-US")} records in ${(elapsedMs / 1000).toFixed(1)} s: ` +
      `${report.written.toLocaleString("en-US")} written, ${report.unchanged.toLocaleString("en-US")} unchanged, ` +
      `${report.skipped.toLocaleString("en-US")} bad ${report.skipped === 1 ? "value" : "values"} skipped`,
    `  events ${report.events}, follower lists ${report.followerLists} (${report.followers} followers), ` +
      `publication lists ${report.publicationLists} (${report.publications} publications)`,
  ].join("\n");

const main = async () => {
  const { positionals, values } = parseCommandLine(USAGE, {
    strict: { type: "boolean", default: false },
    source: { type: "string" },
  });
  if (positionals.length === 0) throw new UsageError("no FILE given", USAGE);
  const source = values.source?.trim() ?? IMPORT_SOURCE;
  if (!/^[a-z0-9_-]{1,40}$/i.test(source) || source === "upstream") {
    throw new UsageError('--source must be 1-40 letters, digits, - or _ (and not "upstream")', USAGE);
  }
  for (const file of positionals) {
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new UsageError(`no such file: ${file}`);
  }

  const startedAt = Date.now();
  const progress = createProgressLine(process.stderr);
  let printed = 0;
  const report = await withCliDb((db) =>
    importFiles(
      db,
      positionals.map((file) => ({ path: file })),
      {
        strict: values.strict,
        source,
        maxRecordBytes: env().IMPORT_MAX_RECORD_BYTES,
        onProgress: (state) => progress.update(state),
        onProblem: (problem) => {
          printed += 1;
          if (printed > MAX_REPORTED_PROBLEMS) return;
          progress.clear();
          console.error(`${problem.file}:${problem.line}: ${problem.message}`);
        },
      },
    ),
  );
  progress.clear();
  if (printed > MAX_REPORTED_PROBLEMS) console.error(`… and ${printed - MAX_REPORTED_PROBLEMS} more bad values`);
  if (report.aborted) {
    throw new CliFailure(
      EXIT.strictRejected,
      `--strict: ${report.skipped} bad ${report.skipped === 1 ? "value" : "values"} found; nothing was written`,
    );
  }
  console.log(summary(report, Date.now() - startedAt));
  // A script must not mistake a partial import for a complete one.
  return report.skipped > 0 ? EXIT.skippedRecords : EXIT.ok;
};

runCli(main);
