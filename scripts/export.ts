import fs from "node:fs";
import { finished } from "node:stream/promises";
import { parseArgs } from "node:util";
import { runCli, UsageError, withCliDb } from "@/lib/cli/open";
import { EXPORT_KINDS, exportRecords, type ExportKind } from "@/lib/import/export";

const USAGE = `usage: npm run --silent export -- --kind events|followers|publications [--out FILE] [--source NAME]
  Writes NDJSON that \`npm run import\` reads back as the same records (to stdout without --out).
  --source   only records of this source (demo, import, upstream, ...)`;

const isKind = (value: string | undefined): value is ExportKind => EXPORT_KINDS.some((kind) => kind === value);

const main = async () => {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      kind: { type: "string" },
      out: { type: "string" },
      source: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!isKind(values.kind)) throw new UsageError(USAGE);
  const kind = values.kind;
  const out = values.out ? fs.createWriteStream(values.out) : process.stdout;
  const { records } = await withCliDb((db) => exportRecords(db, kind, out, { source: values.source }));
  if (out === process.stdout) {
    // runCli exits the process next: let stdout take everything first.
    await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  } else {
    out.end();
    await finished(out);
  }
  console.error(`exported ${records.toLocaleString("en-US")} ${kind} records${values.out ? ` to ${values.out}` : ""}`);
};

runCli(main);
