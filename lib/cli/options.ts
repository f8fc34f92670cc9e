import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
type HelpOption = { help: { type: "boolean"; default: false } };

/**
 * Bad or missing arguments: nothing was done (exit code 2). The message says what is wrong;
 * `usage`, when given, follows it so the caller sees the right form.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** `--help` was given: the usage is the answer (on stdout, exit code 0), and nothing else is done. */
export class HelpRequested extends Error {
  constructor(readonly usage: string) {
    super("help requested");
  }
}

const withHelp = <Described extends Options>(options: Described) =>
  ({ ...options, help: { type: "boolean", default: false } }) as Described & HelpOption;

/** parseArgs's sentence, shortened where it explains more than a CLI user needs. */
const problemOf = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = (error as NodeJS.ErrnoException).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'([^']+)'/.exec(message) : null;
  return unknown ? `unknown option ${unknown[1]}` : message;
};

const printHelpAndExit = (usage: string): never => {
  console.log(usage);
  process.exit(0);
};

/**
 * A command's arguments (`args`: this process's, or those an operator command brought over the
 * socket) as `options` describes them (node:util parseArgs, strict), with positionals (a command,
 * ids, files) and `--help`, which throws HelpRequested with `usage`. An unknown option or a
 * missing value throws a UsageError saying so, with the usage.
 */
export const parseCommandLine = <const Described extends Options>(usage: string, options: Described, args: readonly string[]) => {
  const config = { args: [...args], allowPositionals: true, options: withHelp(options) };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError(problemOf(error), usage);
  }
  if ((parsed.values as { help?: boolean }).help) throw new HelpRequested(usage);
  return { values: parsed.values, positionals: parsed.positionals };
};

/**
 * This process's command-line options as `options` describes them (node:util parseArgs, strict),
 * plus `--help`, which prints `usage` and exits 0. Bad options throw parseArgs's error, or what
 * `onError` makes of its message (with the usage appended).
 */
export const parseCliOptions = <const Described extends Options>(
  usage: string,
  options: Described,
  onError?: (message: string) => Error,
) => {
  const config = { args: process.argv.slice(2), options: withHelp(options) };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    if (!onError) throw error;
    throw onError(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
  if ((parsed.values as { help?: boolean }).help) printHelpAndExit(usage);
  return parsed.values;
};
