/**
 * CSV text per RFC 4180: comma-separated, CRLF line ends, a header row, and a field quoted
 * (with inner quotes doubled) whenever it holds a comma, a quote, CR or LF. Pure — no DOM —
 * so exports are testable in Node and the download itself stays in the component.
 */
export type CsvValue = string | number | boolean | null | undefined;

export type CsvColumn<Row> = {
  /** Header cell. */
  header: string;
  value: (row: Row) => CsvValue;
};

const NEEDS_QUOTES = /[",\r\n]/;

/** One field: null/undefined → empty, booleans as true/false, everything else as its string. */
export const csvField = (value: CsvValue): string => {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const CRLF = "\r\n";

export const toCsv = <Row>(rows: readonly Row[], columns: readonly CsvColumn<Row>[]): string => {
  const lines = [columns.map((column) => csvField(column.header)).join(",")];
  for (const row of rows) lines.push(columns.map((column) => csvField(column.value(row))).join(","));
  return lines.join(CRLF) + CRLF;
};
