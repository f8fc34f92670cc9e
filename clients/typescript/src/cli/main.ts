import { ApiError, SocialLookupError } from "../errors.js";
import { operations, type OperationName } from "../generated/operations.js";
import { runBatchCommand } from "./batch.js";
import { clientOf, COMMON_HELP, parse, type CliIo } from "./common.js";
import { EXIT, exitCodeOf, UsageError } from "./exit-codes.js";
import { lookupCommands, lookupSummary, runLookup } from "./lookup.js";

/** The `social-lookup` command: the API from a shell, built on the SDK; one command per operation. */
export const VERSION = "1.0.0";

const ROOT_HELP = (): string => {
  const rows: [string, string][] = [
    ...lookupCommands().map(([, spec]): [string, string] => [
      `${spec.command} ${spec.primaryParam.toUpperCase()}${spec.paging === null ? "" : " [--all]"}`,
      lookupSummary(spec),
    ]),
    ["account", "the key's credits, limits and spend (free)"],
    ["batch run FILE --operation OP", "many inputs as one batch on the server; results to --out"],
    ["batch status|results|cancel ID", "a batch by its id"],
  ];
  const width = Math.max(...rows.map(([command]) => command.length)) + 2;
  return [
    "social-lookup: the Social Lookup API from a shell (built on @social-lookup/client).",
    "",
    "Usage:",
    ...rows.map(([command, what]) => `  social-lookup ${command.padEnd(width)}${what}`),
    "",
    "The key comes from SOCIAL_LOOKUP_API_KEY (or --key), the server from SOCIAL_LOOKUP_BASE_URL (or --base-url).",
    "Records go to stdout (or --out FILE) as JSON, NDJSON or CSV; progress goes to stderr.",
    "`social-lookup COMMAND --help` shows a command's options.",
    "",
    "Exit codes: 0 done · 1 failed (network, server error, unexpected) · 2 usage · 3 key refused (401/403) ·",
    "4 out of credits (402) · 5 not found (404) · 6 batch stopped or canceled · 7 rate limited (429).",
    "",
  ].join("\n");
};

const accountHelp = `Usage: social-lookup account [options]

The key's credits, limits and spend (GET /v1/account): free, no usage record.

Options:
${COMMON_HELP.join("\n")}
`;

const runAccount = async (args: readonly string[], io: CliIo): Promise<number> => {
  const parsed = parse(args, {});
  if (parsed.values.help === true) {
    io.stdout.write(accountHelp);
    return EXIT.ok;
  }
  if (parsed.positionals.length > 0) throw new UsageError("account takes no argument");
  const answer = await clientOf(parsed, io).account();
  io.stdout.write(`${JSON.stringify(answer.data, null, 2)}\n`);
  return EXIT.ok;
};

const describe = (error: unknown): string => {
  if (error instanceof ApiError) return `${error.message} (HTTP ${error.status}${error.requestId === null ? "" : `, request ${error.requestId}`})`;
  if (error instanceof SocialLookupError || error instanceof UsageError) return error.message;
  return error instanceof Error ? error.message : String(error);
};

/** Runs one command line; answers its exit code. Errors print one `error: …` line on stderr. */
export const main = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const [command, ...args] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      io.stdout.write(ROOT_HELP());
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === "--version") {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    if (command === "account") return await runAccount(args, io);
    if (command === "batch") return await runBatchCommand(args, io);
    const lookup = lookupCommands().find(([, spec]) => spec.command === command);
    if (lookup === undefined) throw new UsageError(`unknown command "${command}"`);
    return await runLookup(lookup[0] satisfies OperationName, args, io);
  } catch (error) {
    const code = exitCodeOf(error);
    io.stderr.write(`error: ${describe(error)}\n`);
    if (error instanceof UsageError) io.stderr.write(`Run social-lookup ${command !== undefined && (command === "batch" || command === "account" || Object.values(operations).some((spec) => spec.command === command)) ? `${command} ` : ""}--help for the usage.\n`);
    return code;
  }
};

