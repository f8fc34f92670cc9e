import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
type HelpOption = { help: { type: "boolean"; default: false } };

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
  const config = { args: process.argv.slice(2), options: { ...options, help: { type: "boolean", default: false } } as Described & HelpOption };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    if (!onError) throw error;
    throw onError(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed.values;
};
