import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { generateDemoData } from "@/lib/demo/generate";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { generatedBody } from "@/tests/support/streams";
import { importFiles } from "./importer";
import { DEFAULT_MAX_RECORD_BYTES, MAX_RECORD_DEPTH } from "./limits";
import { importUpload } from "./upload";

/**
 * Hostile records in an import (docs/security.md "Input"): a record nested thousands deep, or a line
 * of 100 MB, is ONE bad record reported with its line; the valid records before and after it are
 * imported, and the 100 MB line is never held in memory.
 */
const MB = 1024 * 1024;
const RSS_BOUND_BYTES = 300 * MB;
const demo = generateDemoData("http://localhost:3000");
const directory = fs.mkdtempSync(path.join(os.tmpdir(), "sl-import-limits-"));

const event = (id: number, locationPlace: string | null = null): string => {
  const template = demo.events[0];
  if (!template) throw new Error("the demo has no events");
  const text = JSON.stringify({ ...template, event_id: String(id), location_place: null });
  return locationPlace === null ? text : text.replace('"location_place":null', `"location_place":${locationPlace}`);
};
const nested = (depth: number): string => `{"deep":${"[".repeat(depth)}${"]".repeat(depth)}}`;

/** A request body of `before`, then one line of `lineBytes` bytes, then `after`, made as it is read. */
const streamedBody = (before: string, lineBytes: number, after: string): ReadableStream<Uint8Array> => {
  const head = `{"event_id":"1","title":"`;
  const tail = `"}\n`;
  return generatedBody(`${before}${head}`, lineBytes - head.length - tail.length, `${tail}${after}`);
};

/** Runs `work`, sampling this process's RSS every 10 ms: the peak over the RSS before. */
const peakRssDelta = async <T>(work: () => Promise<T>): Promise<{ result: T; rssDelta: number }> => {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, rssDelta: peak - baseline };
  } finally {
    clearInterval(sampler);
  }
};

const storedEvents = async (db: Db): Promise<string[]> =>
  (await db.query<{ event_id: string }>("SELECT event_id FROM events ORDER BY event_id")).map((row) => row.event_id);

afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe.each(await testDatabases())("import limits on $name", (database) => {
  const db = openForSuite(database);
  const clear = () => db().query("DELETE FROM events");

  it("a record nested 5,000 deep is one bad record (its line); the records around it are imported", async () => {
    await clear();
    const file = path.join(directory, `deep-${database.name}.ndjson`);
    fs.writeFileSync(file, [event(101), event(102, nested(5000)), event(103), event(104, nested(MAX_RECORD_DEPTH - 2))].join("\n"));
    const report = await importFiles(db(), [{ path: file }]);
    expect(report.problems).toEqual([{ file, line: 2, message: `record nested deeper than ${MAX_RECORD_DEPTH} levels` }]);
    expect(report).toMatchObject({ records: 3, written: 3, skipped: 1 });
    expect(await storedEvents(db())).toEqual(["101", "103", "104"]);
  });

  it("the same in a pretty-printed JSON array, with the bad element's line", async () => {
    await clear();
    const file = path.join(directory, `deep-${database.name}.json`);
    fs.writeFileSync(file, `[\n${event(201)},\n${event(202, nested(100_000))},\n${event(203)}\n]\n`);
    const report = await importFiles(db(), [{ path: file }]);
    expect(report.problems).toEqual([{ file, line: 3, message: expect.stringMatching(/^record nested deeper than/) }]);
    expect(await storedEvents(db())).toEqual(["201", "203"]);
  });

  it("a line longer than the limit is one bad record, in NDJSON and in a JSON array", async () => {
    await clear();
    const long = `{"event_id":"1","title":"${"x".repeat(4096)}"}`;
    const ndjson = path.join(directory, `long-${database.name}.ndjson`);
    fs.writeFileSync(ndjson, [event(301), long, event(302)].join("\n"));
    const json = path.join(directory, `long-${database.name}.json`);
    fs.writeFileSync(json, `[${event(303)},\n${long},\n${event(304)}]`);
    const report = await importFiles(db(), [{ path: ndjson }, { path: json }], { maxRecordBytes: 2048 });
    expect(report.problems).toEqual([
      { file: ndjson, line: 2, message: "record too large: more than 2,048 bytes (IMPORT_MAX_RECORD_BYTES)" },
      { file: json, line: 2, message: "record too large: more than 2,048 bytes (IMPORT_MAX_RECORD_BYTES)" },
    ]);
    expect(await storedEvents(db())).toEqual(["301", "302", "303", "304"]);
  });

  it(`a 100 MB upload on one line: one bad record, the rest imported, RSS within +${RSS_BOUND_BYTES / MB} MB`, async () => {
    await clear();
    const before = `${event(401)}\n${event(402, nested(5000))}\n`;
    const after = `${event(403)}\n`;
    const { result: report, rssDelta } = await peakRssDelta(() =>
      importUpload(db(), streamedBody(before, 100 * MB, after), { name: "big.ndjson", strict: false }),
    );
    console.log(`100 MB one-line upload on ${database.name}: peak RSS +${Math.round(rssDelta / MB)} MB`);
    expect(report.errors).toEqual([
      { line: 2, message: expect.stringMatching(/^record nested deeper than/) },
      { line: 3, message: `record too large: more than ${DEFAULT_MAX_RECORD_BYTES.toLocaleString("en-US")} bytes (IMPORT_MAX_RECORD_BYTES)` },
    ]);
    expect(report).toMatchObject({ imported: 2, written: 2, skipped: 2, aborted: false });
    expect(await storedEvents(db())).toEqual(["401", "403"]);
    expect(rssDelta).toBeLessThan(RSS_BOUND_BYTES);
  }, 120_000);
});
