import { describe, expect, it } from "vitest";
import { JsonSplitter, type SplitItem } from "./json-splitter";

const split = (text: string, chunkSize = text.length): SplitItem[] => {
  const splitter = new JsonSplitter();
  const items: SplitItem[] = [];
  for (let start = 0; start < text.length; start += chunkSize) items.push(...splitter.push(text.slice(start, start + chunkSize)));
  items.push(...splitter.end());
  return items;
};

describe("JsonSplitter", () => {
  const array = `[\n  {"a": "x,]}\\"{[", "b": [1, [2, {"c": 3}]]},\n  {"d": "\\\\"}\n  ,\n  "text", 42, null\n]\n`;

  it("splits a top-level array into its elements, with the line each starts on", () => {
    expect(split(array)).toEqual([
      { line: 2, text: `{"a": "x,]}\\"{[", "b": [1, [2, {"c": 3}]]}` },
      { line: 3, text: `{"d": "\\\\"}` },
      { line: 5, text: `"text"` },
      { line: 5, text: "42" },
      { line: 5, text: "null" },
    ]);
  });

  it("gives the same values whatever the chunk boundaries (escapes split across chunks included)", () => {
    const whole = split(array);
    for (const size of [1, 2, 3, 7, 16]) expect(split(array, size)).toEqual(whole);
  });

  it("every element parses back to what was written", () => {
    const values = [{ a: 1, b: "}]\n,[{" }, [1, 2, [3]], "é ✓ 🎉", { nested: { deep: [{ x: "\\" }] } }];
    const items = split(JSON.stringify(values, null, 2), 5);
    expect(items.map((item) => ("text" in item ? JSON.parse(item.text) : item))).toEqual(values);
  });

  it("reads a sequence of top-level values (one pretty-printed object, or several)", () => {
    expect(split(`{\n  "a": 1\n}\n{"b": [2]}\n`, 4)).toEqual([
      { line: 1, text: `{\n  "a": 1\n}` },
      { line: 4, text: `{"b": [2]}` },
    ]);
  });

  it("handles an empty array and surrounding whitespace", () => {
    expect(split(" \n [ ] \n")).toEqual([]);
  });

  it("reports an array that never closes, and content after its end", () => {
    expect(split(`[{"a": 1},\n{"b": 2`)).toEqual([
      { line: 1, text: `{"a": 1}` },
      { line: 2, error: "unexpected end of file inside this value" },
      { line: 2, error: "unexpected end of file: the top-level array is not closed" },
    ]);
    expect(split(`[1]\n{"x": 1}`)).toEqual([
      { line: 1, text: "1" },
      { line: 2, error: "unexpected content after the end of the top-level array" },
    ]);
  });

  it("reports a missing comma between elements and keeps going", () => {
    expect(split(`[{"a": 1} {"b": 2}]`)).toEqual([
      { line: 1, text: `{"a": 1}` },
      { line: 1, error: 'expected "," or "]" between array elements, found "{"' },
      { line: 1, text: `{"b": 2}` },
    ]);
  });
});
