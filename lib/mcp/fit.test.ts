import { describe, expect, it } from "vitest";
import { fitForAgent, MCP_MAX_BYTES, MCP_MAX_ITEMS, type Json } from "./fit";

const items = (count: number, text = "x"): Json[] => Array.from({ length: count }, (_, index) => ({ id: index, text }));

describe("fitForAgent", () => {
  it("leaves an answer within the limits as it is, and says nothing was cut", () => {
    const data: Json = { followers: items(25), page: { next: "abc" } };
    const before = JSON.stringify(data);
    expect(fitForAgent(data, undefined, before.length)).toEqual([]);
    expect(fitForAgent(data)).toEqual([]);
    expect(JSON.stringify(data)).toBe(before);
  });

  it("keeps at most 100 entries of every list, nested ones included, and names each cut list by its path", () => {
    const data = { followers: items(250), groups: [{ members: items(120) }] } as { followers: Json[]; groups: { members: Json[] }[] };
    const cuts = fitForAgent(data as unknown as Json);
    expect(data.followers).toHaveLength(MCP_MAX_ITEMS);
    expect(data.groups[0]?.members).toHaveLength(MCP_MAX_ITEMS);
    expect(cuts).toEqual([
      { path: "followers", shown: 100, total: 250 },
      { path: "groups[0].members", shown: 100, total: 120 },
    ]);
  });

  it("halves the longest list until the answer is at most 50 KB", () => {
    const data = { publications: items(100, "y".repeat(2_000)) } as { publications: Json[] };
    const cuts = fitForAgent(data as unknown as Json);
    expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThanOrEqual(MCP_MAX_BYTES);
    expect(data.publications.length).toBe(25);
    expect(cuts).toEqual([{ path: "publications", shown: 25, total: 100 }]);
  });

  it("trusts a size hint only when no list was cut by count", () => {
    const data = { list: items(150, "z".repeat(1_000)) } as { list: Json[] };
    fitForAgent(data as unknown as Json, { maxItems: 100, maxBytes: 20_000 }, 100);
    expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThanOrEqual(20_000);
  });
});
