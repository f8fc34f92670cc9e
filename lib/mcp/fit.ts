/**
 * Large answers are cut to a size an agent's context can take (Apify's MCP server caps at 100
 * items and 50 KB; we take the same): every list keeps at most MAX_ITEMS entries, and while the
 * whole is over MAX_BYTES the longest list is halved. What was cut is reported, so the result
 * can say how to get the rest. The shape stays the record's (lists only get shorter).
 */
export const MCP_MAX_ITEMS = 100;
export const MCP_MAX_BYTES = 50 * 1024;

export type Cut = { path: string; shown: number; total: number };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type FitLimits = { maxItems: number; maxBytes: number };

/** A list found in the answer, with the keys and indexes that lead to it (spelled out only when cut). */
type ListRef = { list: Json[]; total: number; steps: (string | number)[] };

const pathOf = (steps: readonly (string | number)[]): string =>
  steps.reduce<string>((path, step) => (typeof step === "number" ? `${path}[${step}]` : path === "" ? step : `${path}.${step}`), "");

/** Every list under `value`; `steps` is the way down to it (a stack, copied only for a list). */
const listsOf = (value: Json, steps: (string | number)[], into: ListRef[]): void => {
  if (Array.isArray(value)) {
    into.push({ list: value, total: value.length, steps: steps.slice() });
    for (let index = 0; index < value.length; index += 1) {
      const item = value[index];
      if (item === null || typeof item !== "object") continue;
      steps.push(index);
      listsOf(item, steps, into);
      steps.pop();
    }
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const key in value) {
    const child = value[key];
    if (child === null || child === undefined || typeof child !== "object") continue;
    steps.push(key);
    listsOf(child, steps, into);
    steps.pop();
  }
};

const sizeOf = (value: Json): number => Buffer.byteLength(JSON.stringify(value));

/**
 * An upper bound of a text's size in UTF-8 (a UTF-16 unit takes at most 3 bytes): exact only when
 * the bound could matter, so a text well under MCP_MAX_BYTES is not scanned to find out.
 */
export const utf8BytesAtMost = (text: string, limit = MCP_MAX_BYTES): number =>
  text.length * 3 <= limit ? text.length * 3 : Buffer.byteLength(text);

/**
 * Cuts `data` in place (it is the answer's own parsed copy) and says what was cut. `knownBytes`,
 * when given, is at least the size of a JSON text that holds all of `data` (the text it was parsed
 * from): at most MAX_BYTES means no list needs halving, and the answer is not serialised to find out.
 */
export const fitForAgent = (data: Json, limits: FitLimits = { maxItems: MCP_MAX_ITEMS, maxBytes: MCP_MAX_BYTES }, knownBytes?: number): Cut[] => {
  const lists: ListRef[] = [];
  listsOf(data, [], lists);
  let cutByCount = false;
  for (const ref of lists) {
    if (ref.list.length > limits.maxItems) {
      ref.list.length = limits.maxItems;
      cutByCount = true;
    }
  }
  const mayBeTooLarge = knownBytes === undefined || knownBytes > limits.maxBytes || cutByCount;
  while (mayBeTooLarge && sizeOf(data) > limits.maxBytes) {
    const longest = lists.reduce<ListRef | null>((best, ref) => (best === null || ref.list.length > best.list.length ? ref : best), null);
    if (longest === null || longest.list.length === 0) break;
    longest.list.length = Math.floor(longest.list.length / 2);
  }
  return lists.filter((ref) => ref.list.length < ref.total).map((ref) => ({ path: pathOf(ref.steps), shown: ref.list.length, total: ref.total }));
};

export type { Json };
