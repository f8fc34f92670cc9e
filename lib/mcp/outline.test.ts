import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { registry } from "@/lib/operations";
import type { Json } from "./fit";
import { outlineOf } from "./outline";

/** What outlineOf must give, computed from the parsed value. */
const expected = (value: { [key: string]: Json }) => {
  const outline: { [key: string]: Json } = {};
  for (const [key, member] of Object.entries(value)) {
    const copy = Array.isArray(member) ? new Array<Json>(member.length).fill(null) : member;
    if (key === "__proto__") Object.defineProperty(outline, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else outline[key] = copy;
  }
  const longest = (item: Json): number => {
    if (Array.isArray(item)) return Math.max(item.length, ...item.map(longest));
    if (item !== null && typeof item === "object") return Math.max(0, ...Object.values(item).map(longest));
    return 0;
  };
  return { outline, longestList: longest(value) };
};

/** Keys and strings that a naive scanner gets wrong: quotes, escaped backslashes, brackets and commas inside strings. */
const trickyString = fc.oneof(
  fc.string(),
  fc.constantFrom('a"b', "a\\", "\\\\", '\\"', "[1,2]", "{,}", "]", "}", ",", "__proto__", "é ☃ 😀", "\n\t"),
);

const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    trickyString,
    fc.array(tie("value"), { maxLength: 12 }),
    fc.dictionary(trickyString, tie("value"), { maxKeys: 6 }),
  ),
})).value;

const record = fc.dictionary(trickyString, jsonValue, { maxKeys: 8 });

describe("outlineOf", () => {
  it("gives the top-level members as JSON.parse does, each top-level list as one null per entry, and the longest list anywhere", () => {
    fc.assert(
      fc.property(record, fc.boolean(), (value, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        expect(outlineOf(text)).toEqual(expected(JSON.parse(text) as { [key: string]: Json }));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives null for a text that is not a JSON object, so the caller parses it instead", () => {
    for (const text of ["[1,2]", '"x"', "42", "null", "", "{", '{"a":1', '{"a":1}x', '{"a" 1}', '{"a":[1,2}', "{'a':1}", '{"a":"b}']) {
      expect(outlineOf(text)).toBeNull();
    }
    expect(outlineOf(" { } ")).toEqual({ outline: {}, longestList: 0 });
  });

  it("is enough for every operation's summary and next page: they read the paging fields and count the entries", () => {
    for (const operation of registry) {
      if (operation.batch === undefined) continue;
      const text = JSON.stringify(operation.example.data);
      const skim = outlineOf(text);
      expect(skim).not.toBeNull();
      const parsed = JSON.parse(text) as unknown;
      const query = new URLSearchParams({ [operation.primaryParam]: "x" });
      expect(operation.batch.summary(skim?.outline)).toBe(operation.batch.summary(parsed));
      expect(operation.batch.summary(parsed)).not.toBe("");
      expect(operation.batch.nextPage?.(skim?.outline, query)?.toString()).toBe(operation.batch.nextPage?.(parsed, query)?.toString());
    }
  });
});
