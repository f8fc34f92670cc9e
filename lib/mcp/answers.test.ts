import { describe, expect, it } from "vitest";
import { dataSource, readRecord, successResult } from "./answers";
import { MCP_MAX_BYTES, MCP_MAX_ITEMS } from "./fit";

const page = (entries: number, text = "x") =>
  JSON.stringify({ followers: Array.from({ length: entries }, (_, index) => ({ id: index, text })), page_info: { has_next_page: true } });

describe("readRecord and successResult", () => {
  it("reads an outline and offers the record's own text when the answer may carry it and nothing needs cutting", () => {
    const json = page(25);
    const offered: string[] = [];
    const source = dataSource(json, (text: string) => offered.push(text));
    const data = readRecord(source);
    expect(data).toEqual({ followers: new Array(25).fill(null), page_info: { has_next_page: true } });
    const result = successResult(data, "25 followers", null, source);
    expect(offered).toEqual([json]);
    expect(result.content).toEqual([{ type: "text", text: "25 followers" }]);
  });

  it("parses the record when no text can be offered, when a list is over the item limit, or when it may be over the size limit", () => {
    expect(readRecord(dataSource(page(3)))).toEqual(JSON.parse(page(3)));
    const long = page(MCP_MAX_ITEMS + 1);
    expect(readRecord(dataSource(long, () => undefined))).toEqual(JSON.parse(long));
    const large = page(10, "x".repeat(MCP_MAX_BYTES / 10));
    expect(readRecord(dataSource(large, () => undefined))).toEqual(JSON.parse(large));
  });

  it("cuts a long page, says so, and offers nothing: the cut data is serialised", () => {
    const json = page(MCP_MAX_ITEMS + 50);
    const offered: string[] = [];
    const source = dataSource(json, (text: string) => offered.push(text));
    const result = successResult(readRecord(source), "150 followers", null, source);
    expect(offered).toEqual([]);
    expect((result.structuredContent as { followers: unknown[] }).followers).toHaveLength(MCP_MAX_ITEMS);
    expect(JSON.stringify(result.content)).toContain(`followers cut to ${MCP_MAX_ITEMS} of ${MCP_MAX_ITEMS + 50} entries`);
  });
});
