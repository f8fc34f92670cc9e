import { operations, type OperationName } from "../generated/operations.js";
import { valueAt } from "../paths.js";
import type { OperationSpec } from "../spec.js";
import type { Answer, CallOptions, IterateOptions, PagedOperation } from "../types.js";
import type { SocialLookup } from "../client.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { clientOf, COMMON_HELP, parse, progressOf, stringOption, wholeOption, type CliIo } from "./common.js";
import { csvHeader, csvRowsOf, Output } from "./output.js";
import { count } from "./progress.js";

/**
 * One command per operation of the generated table (`social-lookup followers 2000000001 --all`):
 * its primary parameter as the argument, the others as options, written as JSON, NDJSON or CSV.
 * A paged operation with --all follows its declared paging to the last page.
 */
const kebab = (name: string): string => name.replaceAll("_", "-");

const FORMATS = ["json", "ndjson", "csv"] as const;
type Format = (typeof FORMATS)[number];

export const lookupCommands = (): [OperationName, OperationSpec][] => Object.entries(operations) as [OperationName, OperationSpec][];

const credits = (value: number) => `${count(value)} ${value === 1 ? "credit" : "credits"}`;

export const lookupSummary = (spec: OperationSpec): string =>
  `${spec.summary} (${credits(spec.costCredits)}${spec.paging === null ? "" : ` a page of ${spec.pageSize ?? "?"}`})`;

export const lookupHelp = (spec: OperationSpec): string => {
  const primary = spec.params.find((param) => param.name === spec.primaryParam);
  const others = spec.params.filter((param) => param.name !== spec.primaryParam);
  const lines = [
    `Usage: social-lookup ${spec.command} ${spec.primaryParam.toUpperCase()} [options]`,
    "",
    `${spec.summary}: GET ${spec.path}, ${credits(spec.costCredits)}${spec.paging === null ? "" : ` a page (${spec.pageSize ?? "?"} entries)`}, charged only when found.`,
    `${spec.primaryParam.toUpperCase()}: ${primary?.description ?? spec.primaryParam}`,
    "",
    "Options:",
    ...others.map((param) => `  --${kebab(param.name).padEnd(18)}${param.description}`),
    ...(spec.paging === null
      ? []
      : ["  --all               follow the pages to the last one (stop early: Ctrl-C, or a reader that goes away)", "  --max-pages N       stop after N pages"]),
    `  --format FORMAT     json (one page: the data)${spec.paging === null ? "" : ", ndjson (one entry a line; the default with --all)"}${spec.csv === null ? "" : ", csv (a row per record)"}`,
    "  --out FILE          write there instead of stdout",
    "  --cache-control CC  how old a cached answer may be with an upstream source: max-age=3600, no-cache",
    ...COMMON_HELP,
  ];
  return `${lines.join("\n")}\n`;
};

const formatOf = (text: string | undefined, spec: OperationSpec, all: boolean): Format => {
  const format = text ?? (all ? "ndjson" : "json");
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got "${format}"`);
  if (format === "csv" && spec.csv === null) throw new UsageError(`${spec.command} has no CSV form: use --format json or ndjson`);
  return format as Format;
};

/** What one page writes in a format: its entries (paged) or its record. */
const recordsOf = (spec: OperationSpec, data: unknown): unknown[] => {
  if (spec.paging === null) return [data];
  const entries = valueAt(data, spec.paging.entries);
  return Array.isArray(entries) ? entries : [];
};

export const runLookup = async (name: OperationName, args: readonly string[], io: CliIo): Promise<number> => {
  const spec: OperationSpec = operations[name];
  const others = spec.params.filter((param) => param.name !== spec.primaryParam);
  const parsed = parse(args, {
    ...Object.fromEntries(others.map((param) => [kebab(param.name), { type: "string" as const }])),
    ...(spec.paging === null ? {} : { all: { type: "boolean" as const }, "max-pages": { type: "string" as const } }),
    format: { type: "string" },
    out: { type: "string" },
    "cache-control": { type: "string" },
  });
  if (parsed.values.help === true) {
    io.stdout.write(lookupHelp(spec));
    return EXIT.ok;
  }
  if (parsed.positionals.length > 1) throw new UsageError(`${spec.command} takes one ${spec.primaryParam.toUpperCase()}, got ${parsed.positionals.length} arguments`);
  const params: Record<string, string> = {};
  const primary = parsed.positionals[0];
  if (primary !== undefined) params[spec.primaryParam] = primary;
  for (const param of others) {
    const value = stringOption(parsed, kebab(param.name));
    if (value !== undefined) params[param.name] = value;
  }
  const required = spec.params.find((param) => param.name === spec.primaryParam);
  if (primary === undefined && (required?.required === true || Object.keys(params).length === 0)) {
    throw new UsageError(`${spec.command} needs a ${spec.primaryParam.toUpperCase()}`);
  }
  const all = parsed.values.all === true;
  const maxPages = wholeOption(parsed, "max-pages", 1);
  const format = formatOf(stringOption(parsed, "format"), spec, all || maxPages !== undefined);
  const client = clientOf(parsed, io);
  const out = Output.open(stringOption(parsed, "out"), io.stdout);
  const progress = progressOf(parsed, io);
  const cacheControl = stringOption(parsed, "cache-control");
  const callOptions: CallOptions = cacheControl === undefined ? {} : { cacheControl };

  let written = 0;
  let pages = 0;
  let charged = 0;
  const writeHead = async () => {
    if (format === "csv" && spec.csv !== null) await out.write(csvHeader(spec.csv.columns));
    if (format === "json" && (all || maxPages !== undefined)) await out.write("[\n");
  };
  const writePage = async (data: unknown) => {
    if (format === "csv" && spec.csv !== null) {
      await out.write(csvRowsOf(data, spec.csv));
      written += recordsOf(spec, data).length;
      return;
    }
    if (format === "json" && !(all || maxPages !== undefined)) {
      await out.write(`${JSON.stringify(data, null, 2)}\n`);
      written += 1;
      return;
    }
    for (const record of recordsOf(spec, data)) {
      if (format === "json") await out.write(`${written === 0 ? "" : ",\n"}${JSON.stringify(record)}`);
      else await out.write(`${JSON.stringify(record)}\n`);
      written += 1;
    }
  };
  const what = spec.paging === null ? "records" : "entries";
  const show = () => progress.update(`${count(pages)} ${pages === 1 ? "page" : "pages"} · ${count(written)} ${what} · ${credits(charged)}`);

  const paging = spec.paging !== null && (all || maxPages !== undefined);
  try {
    await writeHead();
    for await (const answer of answersOf(client, name, params, paging ? { ...callOptions, maxPages } : null, callOptions)) {
      pages += 1;
      charged += answer.credits.charged;
      await writePage(answer.data);
      show();
      // A reader that went away: stop before the next page is bought.
      if (out.closed) break;
    }
    if (format === "json" && paging) await out.write("\n]\n");
  } finally {
    progress.finish(`${count(pages)} ${pages === 1 ? "page" : "pages"} · ${count(written)} ${what} · ${credits(charged)} spent`);
    await out.end();
  }
  return EXIT.ok;
};

type AnyPaged = PagedOperation<object, unknown, unknown>;
type AnyLookup = (params: object, options: CallOptions) => Promise<Answer<unknown>>;

/**
 * The answers of the command through the SDK's own method for the operation: its pages() walk
 * with --all / --max-pages, else one call.
 */
async function* answersOf(client: SocialLookup, name: OperationName, params: object, walk: IterateOptions | null, options: CallOptions): AsyncGenerator<Answer<unknown>> {
  if (walk !== null) {
    yield* (client[name] as unknown as AnyPaged).pages(params, walk);
    return;
  }
  const method = client[name] as unknown as AnyLookup;
  yield await method.call(client, params, options);
}
