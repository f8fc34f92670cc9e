import fs from "node:fs";
import type { Batch, BatchOperationId } from "../generated/operations.js";
import { operations } from "../generated/operations.js";
import type { BatchHandle } from "../batches.js";
import type { OperationSpec } from "../spec.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { clientOf, COMMON_HELP, parse, progressOf, stringOption, wholeOption, type CliIo, type Parsed } from "./common.js";
import { Output } from "./output.js";
import { count, type Progress } from "./progress.js";

/**
 * `social-lookup batch …`: a file of inputs run as one batch on the server (paid and paced by the
 * key), waited for with a progress line, its results streamed to a file as NDJSON or the server's
 * CSV; and the status, results and cancel of a batch by id.
 */
const batchSpecs = (): OperationSpec[] => Object.values(operations).filter((spec: OperationSpec) => spec.batch);

export const BATCH_HELP = `Usage:
  social-lookup batch run FILE --operation OP [--out FILE] [options]   run FILE's inputs as one batch, then write its results
  social-lookup batch status ID                                         the batch as JSON (status, counts, credits spent)
  social-lookup batch results ID [--format ndjson|csv] [--out FILE]     its results so far
  social-lookup batch cancel ID                                         stop it: inputs not yet looked up are never charged

batch run:
  FILE                one input a line (the operation's main parameter); blank lines are skipped; - reads stdin
  --operation OP      ${batchSpecs().map((spec) => spec.id).join(", ")} (or the command's name: ${batchSpecs().map((spec) => spec.command).join(", ")})
  --out FILE          where the results go (default stdout)
  --format FORMAT     ndjson (one line per input found, as npm run import reads them) or csv (a row per record,
                      the input and its outcome first; cells defused against spreadsheet formulas);
                      default: csv when --out ends in .csv, else ndjson
  --pages first|all   paged operations: the first page of each input (default) or all of them
  --max-pages N       with --pages all: at most N pages an input
  --max-credits N     the most the batch may spend (default: its most possible cost)
  --max-age-s N       the oldest cached upstream answer accepted, in seconds
  --webhook-url URL   where the batch.finished event goes (default: the key's alert webhook)
  Ctrl-C cancels the batch (exit 130); a batch that is stopped or canceled exits 6 after writing its results so far.
${COMMON_HELP.join("\n")}
`;

const operationOf = (text: string | undefined): OperationSpec => {
  if (text === undefined) throw new UsageError("batch run needs --operation (one of " + batchSpecs().map((spec) => spec.id).join(", ") + ")");
  const spec = batchSpecs().find((candidate) => candidate.id === text || candidate.command === text);
  if (spec === undefined) throw new UsageError(`--operation must be one of ${batchSpecs().map((candidate) => candidate.id).join(", ")}, got "${text}"`);
  return spec;
};

const readInputs = async (file: string, io: CliIo): Promise<string[]> => {
  let text: string;
  if (file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    text = Buffer.concat(chunks).toString("utf8");
  } else {
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  const inputs = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (inputs.length === 0) throw new UsageError(`${file} holds no inputs`);
  return inputs;
};

const formatOf = (parsed: Parsed): "ndjson" | "csv" => {
  const format = stringOption(parsed, "format") ?? (stringOption(parsed, "out")?.toLowerCase().endsWith(".csv") ? "csv" : "ndjson");
  if (format !== "ndjson" && format !== "csv") throw new UsageError(`--format must be ndjson or csv, got "${format}"`);
  return format;
};

const credits = (value: number) => `${count(value)} ${value === 1 ? "credit" : "credits"}`;

const progressText = (batch: Batch): string =>
  `${count(batch.done)}/${count(batch.total)} done · ${count(batch.succeeded)} found, ${count(batch.notFound)} not found, ${count(batch.failed)} failed · ${credits(batch.creditsSpent)}`;

/** Streams the results into `out`: the server's CSV, or its NDJSON records a line each. */
const writeResults = async (batch: BatchHandle, format: "ndjson" | "csv", out: Output): Promise<void> => {
  if (format === "csv") {
    for await (const chunk of batch.csv()) {
      await out.write(chunk);
      if (out.closed) return;
    }
    return;
  }
  for await (const record of batch.results()) {
    await out.write(`${JSON.stringify(record)}\n`);
    if (out.closed) return;
  }
};

const runBatch = async (parsed: Parsed, io: CliIo): Promise<number> => {
  const [file, ...rest] = parsed.positionals;
  if (file === undefined || rest.length > 0) throw new UsageError("batch run takes one FILE of inputs");
  const spec = operationOf(stringOption(parsed, "operation"));
  const pages = stringOption(parsed, "pages");
  if (pages !== undefined && pages !== "first" && pages !== "all") throw new UsageError(`--pages must be first or all, got "${pages}"`);
  const maxPages = wholeOption(parsed, "max-pages", 1);
  const maxCredits = wholeOption(parsed, "max-credits");
  const maxAgeS = wholeOption(parsed, "max-age-s");
  const webhookUrl = stringOption(parsed, "webhook-url");
  const format = formatOf(parsed);
  const inputs = await readInputs(file, io);
  const client = clientOf(parsed, io);
  const out = Output.open(stringOption(parsed, "out"), io.stdout);
  const progress = progressOf(parsed, io);

  const options = pages === undefined && maxPages === undefined && maxAgeS === undefined ? undefined : { pages, maxPages, maxAgeS };
  // From here on Ctrl-C cancels the batch: once it exists, on the server too (nothing more is spent).
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once("SIGINT", onSignal);
  try {
    const batch = await client.batches.create({
      operation: spec.id as BatchOperationId,
      inputs,
      ...(options === undefined ? {} : { options: options as { pages?: "first" | "all"; maxPages?: number; maxAgeS?: number } }),
      ...(maxCredits === undefined ? {} : { maxCredits }),
      ...(webhookUrl === undefined ? {} : { webhookUrl }),
    });
    const created = batch.created;
    if (created !== null) {
      io.stderr.write(
        `batch ${batch.id}: ${count(created.total)} inputs of ${spec.id}, at most ${credits(created.maxCredits ?? created.maxCostCredits)}` +
          `${created.rejected.length === 0 ? "" : `; ${count(created.rejected.length)} refused`}\n`,
      );
      for (const rejected of created.rejected.slice(0, 10)) io.stderr.write(`  refused: ${rejected.input}: ${rejected.reason}\n`);
      if (created.rejected.length > 10) io.stderr.write(`  … and ${count(created.rejected.length - 10)} more\n`);
    }
    const finished = await waitOrCancel(batch, progress, io, interrupt.signal);
    if (finished === null) return EXIT.interrupted;
    progress.finish(progressText(finished), finished.total === 0 ? 1 : finished.done / finished.total);
    await writeResults(batch, format, out);
    if (finished.status === "done") return EXIT.ok;
    io.stderr.write(`batch ${batch.id} ended ${finished.status}${finished.stopReason ? ` (${finished.stopReason})` : ""}: its results so far are written\n`);
    return EXIT.batchUnfinished;
  } finally {
    process.off("SIGINT", onSignal);
    await out.end();
  }
};

/** Waits with a progress line; an interrupt (Ctrl-C) cancels the batch on the server and answers null. */
const waitOrCancel = async (batch: BatchHandle, progress: Progress, io: CliIo, interrupt: AbortSignal): Promise<Batch | null> => {
  try {
    interrupt.throwIfAborted();
    return await batch.wait({ signal: interrupt, onProgress: (view) => progress.update(progressText(view), view.total === 0 ? 1 : view.done / view.total) });
  } catch (error) {
    if (!interrupt.aborted) throw error;
    const canceled = await batch.cancel().catch(() => null);
    progress.finish();
    io.stderr.write(`canceled batch ${batch.id}${canceled === null ? " (the cancel was not confirmed)" : `: ${progressText(canceled)}`}\n`);
    return null;
  }
};

export const runBatchCommand = async (args: readonly string[], io: CliIo): Promise<number> => {
  const [action, ...rest] = args;
  const parsed = parse(rest, {
    operation: { type: "string" },
    out: { type: "string" },
    format: { type: "string" },
    pages: { type: "string" },
    "max-pages": { type: "string" },
    "max-credits": { type: "string" },
    "max-age-s": { type: "string" },
    "webhook-url": { type: "string" },
  });
  if (action === undefined || action === "--help" || action === "-h" || parsed.values.help === true) {
    io.stdout.write(BATCH_HELP);
    return EXIT.ok;
  }
  if (action === "run") return runBatch(parsed, io);
  if (action !== "status" && action !== "results" && action !== "cancel") throw new UsageError(`unknown batch command "${action}" (run, status, results, cancel)`);
  const [id, ...extra] = parsed.positionals;
  if (id === undefined || extra.length > 0) throw new UsageError(`batch ${action} takes one batch ID`);
  const client = clientOf(parsed, io);
  const batch = client.batches.get(id);
  if (action === "results") {
    const format = formatOf(parsed);
    const out = Output.open(stringOption(parsed, "out"), io.stdout);
    try {
      await writeResults(batch, format, out);
    } finally {
      await out.end();
    }
    return EXIT.ok;
  }
  const view = action === "status" ? await batch.status() : await batch.cancel();
  io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  return EXIT.ok;
};
