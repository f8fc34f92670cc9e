/**
 * Structured logs, one JSON line each. Callers pass facts (requestId, keyId, operation), never
 * tokens, passwords or Authorization headers.
 */
type Fields = Record<string, string | number | boolean | null | undefined>;

const write = (level: "info" | "warn" | "error", message: string, fields: Fields) => {
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
};

export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

export const log = {
  info: (message: string, fields: Fields = {}) => write("info", message, fields),
  warn: (message: string, fields: Fields = {}) => write("warn", message, fields),
  error: (message: string, fields: Fields = {}) => write("error", message, fields),
};
