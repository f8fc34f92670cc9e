import os from "node:os";
import util from "node:util";
import pino, { type Logger } from "pino";
import { prettyFactory } from "pino-pretty";
import { env, type Env } from "@/lib/env";

/**
 * The process's log: pino, one JSON object a line (level, time, instance, msg, the fields), or
 * readable lines for a person at a terminal. Callers pass facts (requestId, keyId, operation) and
 * an Error as `err` (logged with its stack); never tokens, passwords, Authorization headers or
 * record text. Field values are primitives (a record cannot be passed by accident); the field
 * names below are redacted all the same, a second line of defence.
 *
 * Written synchronously, in this thread: no pino transport (worker threads), because this module
 * is also loaded inside Next's route bundles, and a line written just before process.exit must
 * reach the file.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogValue = string | number | boolean | null | undefined;
/** Primitive values by name; `err` alone may hold anything thrown. */
export type LogFields<F> = { [K in keyof F]: K extends "err" ? unknown : LogValue };
type LogMethod = <F extends LogFields<F>>(message: string, fields?: F) => void;
export type Log = Record<LogLevel, LogMethod>;

/** Where the lines go: the process's stdout, or a test's capture. */
export type LogSink = { write(line: string): void };

export type LoggerSettings = {
  level: LogLevel;
  format: "json" | "pretty";
  instance: string;
  /** Colours in pretty lines (a terminal). */
  colors?: boolean;
  sink?: LogSink;
};

/** Field names whose values never reach a line, at the top or one level down. */
const SECRET_FIELD_NAMES = [
  "authorization", "Authorization", "cookie", "Cookie", "set-cookie", "token", "accessToken", "refreshToken", "idToken",
  "sessionToken", "password", "newPassword", "currentPassword", "secret", "clientSecret", "signingSecret", "apiKey",
  "providerKey", "upstreamKey", "AUTH_SECRET", "ADMIN_PASSWORD", "UPSTREAM_API_KEY", "OIDC_CLIENT_SECRET", "METRICS_TOKEN",
];
const pathOf = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`);
export const REDACTED_PATHS: readonly string[] = SECRET_FIELD_NAMES.flatMap((name) => [pathOf(name), `*${pathOf(name).startsWith("[") ? "" : "."}${pathOf(name)}`]);

/**
 * pino's err serializer (type, message, stack with its causes), keeping only those and a code:
 * an error's other properties (a PostgreSQL error's `detail` holds row values) stay out.
 */
const serializeError = (value: unknown): unknown => {
  if (!(value instanceof Error)) return { type: typeof value, message: String(value) };
  const serialized = pino.stdSerializers.err(value);
  const code = (value as { code?: unknown }).code;
  return {
    type: serialized.type,
    message: serialized.message,
    stack: serialized.stack,
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
  };
};

/** Keys a request line shows in its pretty message instead of after it. */
const REQUEST_KEYS = ["channel", "method", "path", "status", "latencyMs"];

const prettyMessage = (line: Record<string, unknown>, messageKey: string): string => {
  const message = String(line[messageKey] ?? "");
  if (message !== "request") return message;
  return `${String(line.method)} ${String(line.path)} ${String(line.status)} ${String(line.latencyMs)} ms (${String(line.channel)})`;
};

const stdoutSink = (): LogSink => pino.destination({ dest: 1, sync: true });

export const createLogger = (settings: LoggerSettings): Logger => {
  const sink = settings.sink ?? stdoutSink();
  const prettify =
    settings.format === "pretty"
      ? prettyFactory({
          colorize: settings.colors ?? false,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: ["pid", "hostname", "instance", ...REQUEST_KEYS].join(","),
          singleLine: true,
          messageFormat: (line, messageKey) => prettyMessage(line, messageKey),
        })
      : null;
  const destination: LogSink = prettify === null ? sink : { write: (line) => sink.write(prettify(line)) };
  return pino(
    {
      level: settings.level,
      base: { instance: settings.instance },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      redact: { paths: [...REDACTED_PATHS], censor: "[redacted]" },
    },
    destination,
  );
};

/** LOG_FORMAT=auto: pretty for a person at a terminal, JSON for everything that collects lines. */
export const resolveFormat = (format: Env["LOG_FORMAT"], stdoutIsTty: boolean): "json" | "pretty" =>
  format === "auto" ? (stdoutIsTty ? "pretty" : "json") : format;

export const instanceName = (config: Pick<Env, "INSTANCE_ID" | "PORT">, hostName: string): string =>
  config.INSTANCE_ID ?? `${hostName}:${config.PORT}`;

const settingsOfProcess = (): LoggerSettings => {
  const tty = process.stdout.isTTY;
  try {
    const config = env();
    return { level: config.LOG_LEVEL, format: resolveFormat(config.LOG_FORMAT, tty), instance: instanceName(config, os.hostname()), colors: tty };
  } catch {
    // A bad environment is reported through this log too (server.ts): with the defaults.
    return { level: "info", format: tty ? "pretty" : "json", instance: os.hostname(), colors: tty };
  }
};

// One logger per process, shared by the front and Next's route bundles (each has its own copy of
// this module): one destination, one set of settings.
const SHARED = Symbol.for("social-lookup.logger");
type Shared = { [SHARED]?: Logger };

const processLogger = (): Logger => {
  const shared = globalThis as Shared;
  shared[SHARED] ??= createLogger(settingsOfProcess());
  return shared[SHARED];
};

/** The log API over a pino logger: message first, then its facts. */
export const logOver = (logger: () => Logger): Log => {
  const method =
    (level: LogLevel): LogMethod =>
    (message, fields) => {
      const target = logger();
      if (fields === undefined) target[level](message);
      else target[level](fields as Record<string, unknown>, message);
    };
  return { debug: method("debug"), info: method("info"), warn: method("warn"), error: method("error") };
};

export const log: Log = logOver(processLogger);

export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/**
 * What the libraries of the server process (Next, next-auth) write with console.* becomes a log
 * line too, so that every line of the server's output is one of this log's. An Error among the
 * arguments is passed as `err`.
 */
export const routeConsoleToLog = (target: Log = log): void => {
  const to =
    (level: LogLevel) =>
    (...args: unknown[]): void => {
      const errorIndex = args.findIndex((arg) => arg instanceof Error);
      const err = errorIndex === -1 ? undefined : args[errorIndex];
      const rest = errorIndex === -1 ? args : args.filter((_, index) => index !== errorIndex);
      const message = rest.length > 0 ? util.format(...rest) : err instanceof Error ? err.message : "";
      target[level](message, err === undefined ? undefined : { err });
    };
  console.debug = to("debug");
  console.log = to("info");
  console.info = to("info");
  console.warn = to("warn");
  console.error = to("error");
};
