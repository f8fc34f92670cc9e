import { generateDemoData } from "@/lib/demo/generate";

/**
 * The scan of a server's log after a test run: no secret of the run, no Bearer value and no text
 * of a personal record in it; every line the server wrote is one JSON object with level, time
 * and msg; and its request lines carry the request log's fields. The log file also holds what is
 * not the server's: the harness's own lines (`# …`, `==== …`), and, before the server's first line,
 * what `npm start` and the database preparation print (a build, the demo data notice); after it,
 * only `npm start`'s banner for people (scripts/start.ts) may appear among the server's lines.
 */
export type LogSecret = readonly [label: string, value: string];

export type LogScanOptions = {
  secrets: readonly LogSecret[];
  /** Distinctive text of the records the suite reads: names, titles, descriptions. */
  recordTexts: readonly string[];
  /** Request lines must appear (a server that answered the suite wrote some). */
  expectRequestLines: boolean;
};

export type LogScanResult = { problems: string[]; requestLines: Record<string, unknown>[] };

const LEVELS = new Set(["debug", "info", "warn", "error"]);
const REQUEST_FIELDS = ["requestId", "channel", "operation", "status", "latencyMs", "keyId", "method", "path", "instance"] as const;
const CHANNELS = new Set(["api", "mcp", "console", "probe", "metrics"]);
// A secret shorter than this could match by chance; the run's secrets are far longer.
const MIN_SECRET_CHARS = 12;

/** npm start's banner for people (scripts/start.ts, lib/cli/sign-in-hint.ts), printed once the server answers. */
const BANNER_LINES = [
  /^Social Lookup is ready at \S+$/,
  /^ {2}Console: /,
  /^ {2}Sign in (as|with) /,
  /^ {2}\(shown once; /,
  /^ {2}The console uses /,
  /^ {2}API reference: /,
  /^ {2}Issue an API key: /,
];

const isHarnessLine = (line: string): boolean => line.startsWith("# ") || line.startsWith("==== ");

const parseObject = (line: string): Record<string, unknown> | null => {
  if (!line.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** Where a line is, without its text (it may be the leak). */
const where = (index: number) => `line ${index + 1}`;

export const scanServerLog = (text: string, options: LogScanOptions): LogScanResult => {
  const problems: string[] = [];
  for (const [label, value] of options.secrets) {
    if (value.length >= MIN_SECRET_CHARS && text.includes(value)) problems.push(`${label} appears in the log`);
  }
  const bearer = /Bearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/.exec(text);
  if (bearer) problems.push(`a Bearer value appears in the log (offset ${bearer.index})`);
  for (const record of options.recordTexts) {
    if (text.includes(record)) problems.push(`record text ${JSON.stringify(record)} appears in the log`);
  }

  const requestLines: Record<string, unknown>[] = [];
  let serverStarted = false;
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    if (isHarnessLine(line)) {
      if (line.startsWith("==== ")) serverStarted = false;
      return;
    }
    const object = parseObject(line);
    if (object === null) {
      if (serverStarted && !BANNER_LINES.some((pattern) => pattern.test(line))) problems.push(`${where(index)} is not a JSON log line`);
      return;
    }
    serverStarted = true;
    if (typeof object.level !== "string" || !LEVELS.has(object.level)) problems.push(`${where(index)} has no level of debug, info, warn, error`);
    if (typeof object.time !== "string" || Number.isNaN(Date.parse(object.time))) problems.push(`${where(index)} has no time`);
    if (typeof object.msg !== "string") problems.push(`${where(index)} has no msg`);
    if (object.msg !== "request") return;
    requestLines.push(object);
    const missing = REQUEST_FIELDS.filter((field) => !(field in object));
    if (missing.length > 0) problems.push(`${where(index)}, a request line, lacks ${missing.join(", ")}`);
    if (typeof object.channel !== "string" || !CHANNELS.has(object.channel)) problems.push(`${where(index)}, a request line, has no known channel`);
    if (typeof object.status !== "number" || typeof object.latencyMs !== "number") problems.push(`${where(index)}, a request line, has no numeric status and latency`);
    if (typeof object.path === "string" && object.path.includes("?")) problems.push(`${where(index)}, a request line, carries a query string`);
  });
  if (options.expectRequestLines && requestLines.length === 0) problems.push("no request line in the log");
  return { problems, requestLines };
};

const longEnough = (text: string | null | undefined, chars: number): text is string => typeof text === "string" && text.length >= chars;

/**
 * Text of the demo data's records that the suite reads (lookups of events, followers and
 * publications): the events' titles and places, the first followers' names, the publications'
 * titles and first lines. None of it belongs in a log.
 */
export const demoRecordTexts = (publicUrl: string): string[] => {
  const demo = generateDemoData(publicUrl);
  const texts = [
    ...demo.events.flatMap((event) => [event.title, event.location_text]),
    ...demo.followerLists.flatMap((list) => list.followers.slice(0, 25).map((entry) => entry.node.fullName)),
    ...demo.publicationLists.flatMap((list) => list.publications.slice(0, 12).flatMap((publication) => [publication.title, publication.description?.split("\n")[0]])),
  ];
  return [...new Set(texts.filter((text) => longEnough(text, 10)))];
};
