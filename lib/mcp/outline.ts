import type { Json } from "./fit";

/**
 * A record's outline, read from its JSON text in one pass without building its entries: every
 * member of the top-level object as JSON.parse gives it, except that a list at the top level holds
 * `null` for each of its entries (a page's followers or publications). Beside it, the length of
 * the longest list anywhere in the text, nested ones included.
 *
 * A tool answer whose structuredContent is the record's own text (lib/mcp/request-mux.ts) needs no
 * more: the summary and the next page read the paging fields and count the entries
 * (lib/operations/define.ts), and the length says whether anything must be cut to fit.
 * Parsing an 8 KB page and collecting its objects cost more than the rest of the tool call.
 */
export type Outline = { outline: { [key: string]: Json }; longestList: number };

// Literal constants of this module, not imported ones: V8 folds these into the scan's switch, and
// with imported bindings the same scan took 82 µs instead of 13 (lib/import/limits.ts has its own).
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_LIST = 91;
const CLOSE_LIST = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;

class NotAnOutline extends Error {}

const isSpace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9;

const skipSpace = (text: string, from: number): number => {
  let index = from;
  while (index < text.length && isSpace(text.charCodeAt(index))) index += 1;
  return index;
};

/** The index just past the string that opens at `start`. */
const stringEnd = (text: string, start: number): number => {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new NotAnOutline();
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
};

/** Where a number, true, false or null that starts at `start` ends. */
const scalarEnd = (text: string, start: number): number => {
  let index = start;
  for (; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === COMMA || code === CLOSE_LIST || code === CLOSE_OBJECT || isSpace(code)) break;
  }
  if (index === start) throw new NotAnOutline();
  return index;
};

type Scan = { end: number; entries: number; longestList: number };

/**
 * The value that starts at `start`: where it ends, how many entries it has when it is a list, and
 * its longest list. Lists and objects are walked with a stack of open containers (commas counted
 * at a list's own level), strings skipped whole.
 */
const scanValue = (text: string, start: number): Scan => {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return { end: stringEnd(text, start), entries: 0, longestList: 0 };
  if (first !== OPEN_LIST && first !== OPEN_OBJECT) return { end: scalarEnd(text, start), entries: 0, longestList: 0 };
  // Per open container: -1 for an object, else the list's commas so far (its entries less one).
  const open: number[] = [];
  // The innermost container is a list that has had no entry yet (its next token decides).
  let listJustOpened = false;
  let longestList = 0;
  let outerEntries = 0;
  for (let index = start; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    switch (code) {
      case 32:
      case 10:
      case 13:
      case 9:
        continue;
      case QUOTE:
        index = stringEnd(text, index) - 1;
        break;
      case OPEN_LIST:
        open.push(0);
        listJustOpened = true;
        continue;
      case OPEN_OBJECT:
        open.push(-1);
        break;
      case COMMA: {
        const top = open.length - 1;
        const commas = open[top]!;
        if (commas >= 0) open[top] = commas + 1;
        break;
      }
      case CLOSE_LIST:
      case CLOSE_OBJECT: {
        const state = open.pop();
        if (state === undefined || (code === CLOSE_LIST) !== (state >= 0)) throw new NotAnOutline();
        if (code === CLOSE_LIST) {
          const entries = listJustOpened ? 0 : state + 1;
          if (entries > longestList) longestList = entries;
          if (open.length === 0) outerEntries = entries;
        }
        listJustOpened = false;
        if (open.length === 0) return { end: index + 1, entries: outerEntries, longestList };
        continue;
      }
      default:
        break;
    }
    // Any token but a closing bracket after an opening one is the list's first entry.
    listJustOpened = false;
  }
  throw new NotAnOutline();
};

const setMember = (target: { [key: string]: Json }, key: string, value: Json): void => {
  // As JSON.parse does: "__proto__" is an own member, not the object's prototype.
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
};

/** The outline of a JSON object's text, or null when the text is not one (the caller parses it instead). */
export const outlineOf = (text: string): Outline | null => {
  try {
    let index = skipSpace(text, 0);
    if (text.charCodeAt(index) !== OPEN_OBJECT) return null;
    const outline: { [key: string]: Json } = {};
    let longestList = 0;
    index = skipSpace(text, index + 1);
    if (text.charCodeAt(index) === CLOSE_OBJECT) return skipSpace(text, index + 1) === text.length ? { outline, longestList } : null;
    for (;;) {
      if (text.charCodeAt(index) !== QUOTE) return null;
      const keyEnd = stringEnd(text, index);
      const key = JSON.parse(text.slice(index, keyEnd)) as string;
      index = skipSpace(text, keyEnd);
      if (text.charCodeAt(index) !== COLON) return null;
      const valueStart = skipSpace(text, index + 1);
      const scan = scanValue(text, valueStart);
      if (scan.longestList > longestList) longestList = scan.longestList;
      const value: Json =
        text.charCodeAt(valueStart) === OPEN_LIST ? new Array<Json>(scan.entries).fill(null) : (JSON.parse(text.slice(valueStart, scan.end)) as Json);
      setMember(outline, key, value);
      index = skipSpace(text, scan.end);
      const next = text.charCodeAt(index);
      if (next === CLOSE_OBJECT) return skipSpace(text, index + 1) === text.length ? { outline, longestList } : null;
      if (next !== COMMA) return null;
      index = skipSpace(text, index + 1);
    }
  } catch (error) {
    if (error instanceof NotAnOutline || error instanceof SyntaxError) return null;
    throw error;
  }
};
