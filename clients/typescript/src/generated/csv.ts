// Copied from lib/export/csv.ts by scripts/generate-clients.ts. Do not edit: edit that file and regenerate.

/**
 * The one CSV writer (RFC 4180): comma-separated, CRLF line ends, a header row, and a field quoted
 * (with inner quotes doubled) whenever it holds a comma, a quote, CR or LF. Pure — no DOM — so it
 * serves the browser's downloads (toCsv), the server's streamed usage exports (csvLine) and batch
 * results alike. Every text cell is defused against spreadsheet formulas (csvText).
 */
export type CsvValue = string | number | boolean | null | undefined;

export type CsvColumn<Row> = {
  /** Header cell. */
  header: string;
  value: (row: Row) => CsvValue;
};

const NEEDS_QUOTES = /[",\r\n]/;
const CRLF = "\r\n";

/** A cell a spreadsheet would run as a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number written as text ("-12.5"): no formula, and it must stay a number. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * A text cell, defused: one that starts with = + - @ tab or CR gets a leading ' so a spreadsheet
 * shows it as text instead of running it. Record text comes from third-party sites and key names
 * from users, so every text cell goes through here; numbers are never altered.
 */
export const csvText = (text: string): string => (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text);

/** One field: null/undefined → empty, booleans as true/false, numbers as written, text defused. */
export const csvField = (value: CsvValue): string => {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? csvText(value) : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** One record, with its line end. */
export const csvLine = (values: readonly CsvValue[]): string => `${values.map(csvField).join(",")}${CRLF}`;

export const toCsv = <Row>(rows: readonly Row[], columns: readonly CsvColumn<Row>[]): string =>
  csvLine(columns.map((column) => column.header)) + rows.map((row) => csvLine(columns.map((column) => column.value(row)))).join("");
