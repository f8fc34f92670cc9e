import { describe, expect, it } from "vitest";
import { tableOf } from "./batch-shapes";
import { nextPageBy } from "./paging";
import { valueAt, valuesAt } from "./paths";

describe("paths into a record", () => {
  const page = { followers: [{ node: { id: "a" } }, { node: { id: "b" } }], page_info: { end_cursor: "c" } };

  it("reads one value by its dotted path, undefined when absent", () => {
    expect(valueAt(page, "page_info.end_cursor")).toBe("c");
    expect(valueAt(page, "page_info.missing.deeper")).toBeUndefined();
    expect(valueAt(null, "page_info")).toBeUndefined();
  });

  it("reads each entry of a list marked []", () => {
    expect(valuesAt(page, "followers[].node")).toEqual([{ id: "a" }, { id: "b" }]);
    expect(valuesAt(page, "followers[].node.id")).toEqual(["a", "b"]);
    expect(valuesAt(page, "nothing[]")).toEqual([]);
    expect(valuesAt({ event: { id: 1 } }, "event")).toEqual([{ id: 1 }]);
  });
});

describe("next pages from a declaration", () => {
  const next = nextPageBy({
    entries: "data",
    hasMore: "has_more",
    next: [
      { param: "urn", fromQuery: true },
      { param: "page", fromData: "page", add: 1 },
    ],
  });
  const query = new URLSearchParams("urn=urn:li:member:1&page=4&extra=dropped");

  it("carries the query's parameter and adds to a number of the page", () => {
    expect(next({ page: 4, has_more: true }, query)?.toString()).toBe("urn=urn%3Ali%3Amember%3A1&page=5");
  });

  it("stops when the page says no more, or lacks what the next page needs", () => {
    expect(next({ page: 4, has_more: false }, query)).toBeNull();
    expect(next({ page: "4", has_more: true }, query)).toBeNull();
    expect(next({ page: 4, has_more: true }, new URLSearchParams())).toBeNull();
    expect(next({ page: 4, has_more: "true" }, query)).toBeNull();
  });
});

describe("CSV tables from a row path", () => {
  it("writes a row per record, lists joined with '; ', objects as JSON, nothing for a page its reader refuses", () => {
    const table = tableOf((data) => data, "items[]", ["name", "tags", "place", "count"]);
    expect(table.rows({ items: [{ name: "a", tags: ["x", "y"], place: { lat: 1 }, count: 0 }, { name: "b" }] })).toEqual([
      { name: "a", tags: "x; y", place: '{"lat":1}', count: 0 },
      { name: "b", tags: null, place: null, count: null },
    ]);
    expect(tableOf(() => null, "items[]", ["name"]).rows({ items: [{ name: "a" }] })).toEqual([]);
  });
});
