/**
 * The one CSV writer (RFC 4180): comma-separated, CRLF line ends, a header row, and a field quoted
 * (with inner quotes doubled) whenever it holds a comma, a quote, CR or LF. Pure — no DOM — so it
 * serves the browser's downloads (toCsv) and the server's streamed usage exports (csvLine) alike.
 */
export type CsvValue = string | number | boolean | null | undefined;

export type CsvColumn<Row> = {
  /** Header cell. */
  header: string;
  value: (row: Row) => CsvValue;
};

const NEEDS_QUOTES = /[",\r\n]/;
const CRLF = "\r\n";

/** One field: null/undefined → empty, booleans as true/false, everything else as its string. */
export const csvField = (value: CsvValue): string => {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** One record, with its line end. */
export const csvLine = (values: readonly CsvValue[]): string => `${values.map(csvField).join(",")}${CRLF}`;

export const toCsv = <Row>(rows: readonly Row[], columns: readonly CsvColumn<Row>[]): string =>
  csvLine(columns.map((column) => column.header)) + rows.map((row) => csvLine(columns.map((column) => column.value(row)))).join("");
