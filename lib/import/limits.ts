/**
 * What one record of an import may be. A record past either limit is reported as one bad record
 * (with its line) and skipped: a 100 MB line is never held in memory, and a record nested
 * thousands deep never reaches JSON.stringify or the database, whose recursion it would overflow
 * (which used to fail the whole batch around it).
 */

/** The default per-record (per-line in NDJSON) size limit; IMPORT_MAX_RECORD_BYTES overrides it. */
export const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** No record of the API nests deeper than a few levels; location_place is free-form, so leave room. */
export const MAX_RECORD_DEPTH = 64;

export const tooLargeMessage = (maxRecordBytes: number): string =>
  `record too large: more than ${maxRecordBytes.toLocaleString("en-US")} bytes (IMPORT_MAX_RECORD_BYTES)`;

export const tooDeepMessage = `record nested deeper than ${MAX_RECORD_DEPTH} levels`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether a JSON text nests deeper than `maxDepth`, read without parsing it (so without any
 * recursion) and without allocating (a record may be tens of MB): brackets outside strings are
 * counted, escapes inside strings skipped.
 */
export const nestsDeeperThan = (text: string, maxDepth: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
  }
  return false;
};
