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

const STRUCTURE = /["\\{}[\]]/g;

/**
 * Whether a JSON text nests deeper than `maxDepth`, read without parsing it (so without any
 * recursion): brackets outside strings are counted, escapes inside strings skipped.
 */
export const nestsDeeperThan = (text: string, maxDepth: number): boolean => {
  let depth = 0;
  let inString = false;
  STRUCTURE.lastIndex = 0;
  for (let match = STRUCTURE.exec(text); match; match = STRUCTURE.exec(text)) {
    const char = match[0];
    if (inString) {
      if (char === "\\") STRUCTURE.lastIndex += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{" || char === "[") {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (char === "}" || char === "]") depth -= 1;
  }
  return false;
};
