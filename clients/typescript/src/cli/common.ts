import type { Readable, Writable } from "node:stream";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { SocialLookup } from "../client.js";
import { UsageError } from "./exit-codes.js";
import { Progress } from "./progress.js";

/** What a command runs with: the streams and the environment (tests pass their own). */
export type CliIo = {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable;
  env: Record<string, string | undefined>;
};

type Options = NonNullable<ParseArgsConfig["options"]>;

export const COMMON_OPTIONS = {
  key: { type: "string" },
  "base-url": { type: "string" },
  progress: { type: "boolean" },
  quiet: { type: "boolean" },
  "max-retries": { type: "string" },
  "timeout-ms": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

export const COMMON_HELP = [
  "  --key KEY           the API key (default: $SOCIAL_LOOKUP_API_KEY; the environment keeps it out of `ps`)",
  "  --base-url URL      the server (default: $SOCIAL_LOOKUP_BASE_URL, else http://localhost:3000)",
  "  --progress          progress on stderr even when it is not a terminal (default: on a terminal only)",
  "  --quiet             no progress",
  "  --max-retries N     retries after a network error or a server error, with backoff (default 2)",
  "  --timeout-ms N      per request (default 30000)",
  "  -h, --help          this help",
];

export type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** parseArgs, with its errors as usage errors. */
export const parse = (args: readonly string[], options: Options): Parsed => {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values: values as Parsed["values"], positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.replace(/\. To specify a positional argument.*$/s, "") : String(error));
  }
};

export const stringOption = (parsed: Parsed, name: string): string | undefined => {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
};

/** A whole number ≥ min, or undefined when absent; a UsageError when it is not one. */
export const wholeOption = (parsed: Parsed, name: string, min = 0): number | undefined => {
  const text = stringOption(parsed, name);
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${text}"`);
  return Number(text);
};

export const clientOf = (parsed: Parsed, io: CliIo): SocialLookup => {
  const apiKey = stringOption(parsed, "key") ?? io.env.SOCIAL_LOOKUP_API_KEY;
  if (apiKey === undefined || apiKey.trim() === "") throw new UsageError("no API key: set SOCIAL_LOOKUP_API_KEY or pass --key");
  const baseUrl = stringOption(parsed, "base-url") ?? io.env.SOCIAL_LOOKUP_BASE_URL;
  try {
    return new SocialLookup({
      apiKey,
      baseUrl: baseUrl === undefined || baseUrl === "" ? "http://localhost:3000" : baseUrl,
      maxRetries: wholeOption(parsed, "max-retries"),
      timeoutMs: wholeOption(parsed, "timeout-ms", 1),
    });
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
};

export const progressOf = (parsed: Parsed, io: CliIo): Progress =>
  new Progress(io.stderr, parsed.values.quiet !== true && (parsed.values.progress === true || io.stderr.isTTY === true));
