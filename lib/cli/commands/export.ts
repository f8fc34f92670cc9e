import fs from "node:fs";
import type { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { flushed, resolveIn, type OperatorCommand } from "@/lib/cli/command";
import { UsageError } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import { EXPORT_KINDS, exportRecords, type ExportKind } from "@/lib/import/export";

const USAGE = `usage: npm run --silent export -- --kind ${EXPORT_KINDS.join("|")} [--out FILE] [--source NAME]
  Writes NDJSON that \`npm run import\` reads back as the same records (to stdout without --out).
  --source   only records of this source (demo, import, upstream, ...)`;

const isKind = (value: string | undefined): value is ExportKind => EXPORT_KINDS.some((kind) => kind === value);

/** The --out file, created before anything else happens, so a bad path fails with one line. */
const openOut = async (file: string, shown: string): Promise<Writable> => {
  try {
    return (await fs.promises.open(file, "w")).createWriteStream();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "its directory does not exist" : (error as Error).message;
    throw new UsageError(`cannot write --out ${shown}: ${reason}`);
  }
};

/** `npm run export -- …` (scripts/export.ts), here or in the running server (lib/cli/operator). */
export const exportCommand: OperatorCommand = async (context) => {
  const { values, positionals } = parseCommandLine(
    USAGE,
    {
      kind: { type: "string" },
      out: { type: "string" },
      source: { type: "string" },
    },
    context.args,
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, USAGE);
  if (values.kind === undefined) throw new UsageError(`--kind is required (${EXPORT_KINDS.join(", ")})`, USAGE);
  if (!isKind(values.kind)) throw new UsageError(`--kind must be one of ${EXPORT_KINDS.join(", ")}, not "${values.kind}"`, USAGE);
  const kind = values.kind;
  const file = values.out ? await openOut(resolveIn(context, values.out), values.out) : null;
  const out = file ?? context.stdout;
  const { records } = await context.withDb((db) => exportRecords(db, kind, out, { source: values.source }));
  if (file === null) {
    // The exit code follows next: let stdout take everything first.
    await flushed(context.stdout);
  } else {
    file.end();
    await finished(file);
  }
  context.err(`exported ${records.toLocaleString("en-US")} ${kind} records${values.out ? ` to ${values.out}` : ""}`);
};
