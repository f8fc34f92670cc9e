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

type ListRef = { path: string; list: Json[]; total: number };

const listsOf = (value: Json, path: string, into: ListRef[]): void => {
  if (Array.isArray(value)) {
    into.push({ path, list: value, total: value.length });
    value.forEach((item, index) => listsOf(item, `${path}[${index}]`, into));
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) listsOf(child, path === "" ? key : `${path}.${key}`, into);
  }
};

const sizeOf = (value: Json): number => Buffer.byteLength(JSON.stringify(value));

/** Cuts `data` in place (it is the answer's own parsed copy) and says what was cut. */
export const fitForAgent = (data: Json, limits = { maxItems: MCP_MAX_ITEMS, maxBytes: MCP_MAX_BYTES }): Cut[] => {
  const lists: ListRef[] = [];
  listsOf(data, "", lists);
  for (const ref of lists) if (ref.list.length > limits.maxItems) ref.list.length = limits.maxItems;
  while (sizeOf(data) > limits.maxBytes) {
    const longest = lists.reduce<ListRef | null>((best, ref) => (best === null || ref.list.length > best.list.length ? ref : best), null);
    if (longest === null || longest.list.length === 0) break;
    longest.list.length = Math.floor(longest.list.length / 2);
  }
  return lists.filter((ref) => ref.list.length < ref.total).map((ref) => ({ path: ref.path, shown: ref.list.length, total: ref.total }));
};

export type { Json };
