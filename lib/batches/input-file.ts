import Papa from "papaparse";

/**
 * Reading an uploaded list in the browser: a TXT file is one input per line; a CSV file is read
 * by papaparse (quoted fields, doubled quotes), its delimiter detected — comma, semicolon (what
 * Excel writes in much of Europe) or tab — so the analyst can pick the column that holds the
 * inputs. Pure: the page reads the file's text and hands it here.
 */
export type InputTable = { kind: "lines"; lines: string[] } | { kind: "csv"; header: string[]; rows: string[][] };

const DELIMITERS = [",", ";", "\t"];

export const parseCsvText = (text: string): string[][] =>
  Papa.parse<string[]>(text, { delimitersToGuess: DELIMITERS, skipEmptyLines: "greedy" }).data;

export const readInputFile = (name: string, text: string): InputTable => {
  const clean = text.replace(/^\uFEFF/, "");
  const rows = name.toLowerCase().endsWith(".csv") ? parseCsvText(clean) : [];
  const widest = rows.reduce((most, cells) => Math.max(most, cells.length), 0);
  // A CSV of one column is a list of lines, header or not; the preview rejects a header line.
  if (widest < 2) return { kind: "lines", lines: rows.length > 0 ? rows.map((cells) => cells[0] ?? "") : clean.split(/\r?\n/) };
  const [header = [], ...body] = rows;
  return { kind: "csv", header: header.map((cell, index) => cell.trim() || `Column ${index + 1}`), rows: body };
};

/** The values of one column (by index), one per row. */
export const columnValues = (table: Extract<InputTable, { kind: "csv" }>, column: number): string[] =>
  table.rows.map((cells) => cells[column] ?? "");

/** The column most of whose values the check accepts: a sensible first pick. */
export const likelyColumn = (table: Extract<InputTable, { kind: "csv" }>, accepts: (value: string) => boolean): number => {
  let best = 0;
  let bestCount = -1;
  table.header.forEach((_, column) => {
    const count = columnValues(table, column).filter((value) => accepts(value.trim())).length;
    if (count > bestCount) {
      best = column;
      bestCount = count;
    }
  });
  return best;
};
