/**
 * An RFC 4180 reader for tests: quoted fields, doubled quotes, CRLF-separated records. A last
 * record without a closing CRLF is kept, so callers can assert how their text ends.
 *
 * It is an oracle for the product's CSV writers and for lib/batches/input-file.ts's reader, so it
 * is written another way on purpose: one sticky regular expression per field instead of a
 * character loop, and strict — text that is not RFC 4180 (a stray quote, a bare line break
 * outside quotes) throws instead of being read somehow.
 */
const FIELD = /(?:"((?:[^"]|"")*)"|([^",\r\n]*))(,|\r\n|$)/y;

export const parseCsv = (text: string): string[][] => {
  const rows: string[][] = [];
  let row: string[] = [];
  FIELD.lastIndex = 0;
  while (FIELD.lastIndex < text.length) {
    const at = FIELD.lastIndex;
    const match = FIELD.exec(text);
    if (match === null) throw new Error(`not RFC 4180 CSV at offset ${at}: ${JSON.stringify(text.slice(at, at + 40))}`);
    const [, quoted, bare = "", separator] = match;
    row.push(quoted === undefined ? bare : quoted.replaceAll('""', '"'));
    if (separator !== ",") {
      rows.push(row);
      row = [];
    }
  }
  // Text that ends in a comma ends with an empty field.
  if (row.length > 0) rows.push([...row, ""]);
  return rows;
};
