import { describe, expect, it } from "vitest";
import { batchOperationById, batchOperationView } from "./operations";
import { CHECK_SLICE, checkInputs, checkInputsInSlices, maxCostCredits, pagesPerInput, type BatchOperationView } from "./inputs";
import { columnValues, likelyColumn, readInputFile } from "./input-file";

const view = (id: string): BatchOperationView => {
  const operation = batchOperationById(id);
  if (!operation) throw new Error(`no batch operation ${id}`);
  return batchOperationView(operation);
};
const config = { eventSiteHosts: ["events.demo.test"], maxInputs: 3 };

describe("checkInputsInSlices", () => {
  it("answers what checkInputs answers, duplicates across slices included, letting the event loop turn between slices", async () => {
    const lines = Array.from({ length: CHECK_SLICE * 2 + 10 }, (_, index) =>
      index % 7 === 0 ? `not-a-url-${index}` : `https://events.demo.test/events/${1_000 + (index % (CHECK_SLICE + 3))}/`,
    );
    const wide = { ...config, maxInputs: 100_000 };
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const sliced = await checkInputsInSlices(view("event_details"), lines, wide);
    clearInterval(ticking);
    expect(sliced).toEqual(checkInputs(view("event_details"), lines, wide));
    expect(sliced.duplicates.length).toBeGreaterThan(0);
    expect(turns).toBeGreaterThan(0);
  });
});

describe("checkInputs", () => {
  it("accepts event URLs of a configured host, counts the same event once however its URL is written", () => {
    const check = checkInputs(
      view("event_details"),
      [
        " https://events.demo.test/events/1000000000000001/ ",
        "https://www.events.demo.test/events/1000000000000001",
        "https://events.demo.test/events/1000000000000002/?ref=mail",
        "",
        "https://evil.example/events/1/",
        "not a url",
      ],
      config,
    );
    expect(check.accepted).toEqual([
      { input: "https://events.demo.test/events/1000000000000001/", query: "url=https%3A%2F%2Fevents.demo.test%2Fevents%2F1000000000000001%2F" },
      { input: "https://events.demo.test/events/1000000000000002/?ref=mail", query: "url=https%3A%2F%2Fevents.demo.test%2Fevents%2F1000000000000002%2F%3Fref%3Dmail" },
    ]);
    expect(check.duplicates).toEqual(["https://www.events.demo.test/events/1000000000000001"]);
    expect(check.rejected).toEqual([
      { input: "https://evil.example/events/1/", reason: "not an event URL" },
      { input: "not a url", reason: "not an event URL" },
    ]);
    expect(check.overLimit).toBe(0);
  });

  it("checks each operation's input with its own parameter schema and says why a line is refused", () => {
    expect(checkInputs(view("event_details_id"), ["123", "12a"], config).rejected).toEqual([{ input: "12a", reason: "not an event id (digits only)" }]);
    expect(checkInputs(view("followers"), ["2000000002", "-1"], config).rejected).toEqual([{ input: "-1", reason: "not a user id (digits only)" }]);
    const urns = checkInputs(view("get_user_publications"), ["urn:li:member:3000000001", "member:1"], config);
    expect(urns.accepted.map((entry) => entry.query)).toEqual(["urn=urn%3Ali%3Amember%3A3000000001"]);
    expect(urns.rejected).toEqual([{ input: "member:1", reason: "not a profile URN (urn:li:…)" }]);
  });

  it("counts inputs past the per-batch limit", () => {
    expect(checkInputs(view("event_details_id"), ["1", "2", "3", "4", "5"], config).overLimit).toBe(2);
  });
});

describe("cost", () => {
  it("is inputs × pages × the operation's price, pages only for paged operations and never above the limit", () => {
    const followers = view("followers");
    expect(pagesPerInput(followers, { pages: "first" }, 100)).toBe(1);
    expect(pagesPerInput(followers, { pages: "all", maxPages: 5 }, 100)).toBe(5);
    expect(pagesPerInput(followers, { pages: "all", maxPages: 500 }, 100)).toBe(100);
    expect(pagesPerInput(view("event_details"), { pages: "all", maxPages: 5 }, 100)).toBe(1);
    expect(maxCostCredits(followers, 40, 5)).toBe(400);
    expect(maxCostCredits(view("event_details"), 50, 1)).toBe(200);
  });
});

describe("readInputFile", () => {
  it("reads a CSV with quoted fields and picks the column whose values are inputs", () => {
    const table = readInputFile(
      "list.csv",
      '\uFEFFname,"page, url"\r\n"Fair, summer",https://events.demo.test/events/1/\r\nGala,https://events.demo.test/events/2/\r\n',
    );
    if (table.kind !== "csv") throw new Error("expected a CSV table");
    expect(table.header).toEqual(["name", "page, url"]);
    expect(columnValues(table, 0)).toEqual(["Fair, summer", "Gala"]);
    const operation = view("event_details");
    expect(likelyColumn(table, (value) => checkInputs(operation, [value], config).accepted.length === 1)).toBe(1);
  });

  it("reads a CSV separated by semicolons (Excel in much of Europe) or by tabs", () => {
    for (const delimiter of [";", "\t"]) {
      const table = readInputFile(
        "list.csv",
        `name${delimiter}event page\r\n"Fair${delimiter} summer"${delimiter}https://events.demo.test/events/1/\r\nGala${delimiter}https://events.demo.test/events/2/\r\n`,
      );
      if (table.kind !== "csv") throw new Error(`expected a CSV table for ${JSON.stringify(delimiter)}`);
      expect(table.header).toEqual(["name", "event page"]);
      expect(columnValues(table, 0)).toEqual([`Fair${delimiter} summer`, "Gala"]);
      expect(columnValues(table, 1)).toEqual(["https://events.demo.test/events/1/", "https://events.demo.test/events/2/"]);
    }
  });

  it("reads a TXT file (or a one-column CSV) as one input per line", () => {
    expect(readInputFile("ids.txt", "1\n2\r\n3")).toEqual({ kind: "lines", lines: ["1", "2", "3"] });
    expect(readInputFile("ids.csv", "id\n1\n2\n")).toEqual({ kind: "lines", lines: ["id", "1", "2"] });
  });
});
