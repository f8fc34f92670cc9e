import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createCursorCodec } from "@/lib/connectors/cursor";
import { nodeIdFor } from "@/lib/records/node-id";
import { createStoreConnector } from "@/lib/connectors/store";
import type { LookupContext } from "@/lib/connectors/types";
import { eventSource } from "@/lib/operations/event-details-id/source";
import { followersSource } from "@/lib/operations/followers/source";
import { publicationsSource } from "@/lib/operations/publications/source";
import { FOLLOWERS_PAGE_SIZE } from "@/lib/operations/followers/descriptor";
import { PUBLICATIONS_PAGE_SIZE } from "@/lib/operations/publications/descriptor";
import { generateDemoData } from "@/lib/demo/generate";
import { seedDemoData } from "@/lib/demo/seed";
import { openForSuite, pgliteDatabase } from "@/tests/support/databases";
import { exportRecords, type ExportKind } from "./export";
import { importFiles } from "./importer";

const demo = generateDemoData("http://localhost:3000");
const database = pgliteDatabase();
const directory = fs.mkdtempSync(path.join(os.tmpdir(), "sl-import-"));
const cursors = createCursorCodec(crypto.randomBytes(32));
const context: LookupContext = { keyOwnerId: null, reserve: async () => true };
const db = openForSuite(database);

const file = (name: string, content: string): string => {
  const target = path.join(directory, name);
  fs.writeFileSync(target, content);
  return target;
};

const snapshot = async () => ({
  events: await db().query("SELECT event_id, record::text AS record, source, fetched_at FROM events ORDER BY event_id"),
  users: await db().query("SELECT user_id, node_id, follower_count, source, fetched_at FROM pin_users ORDER BY user_id"),
  followers: await db().query<{ total: number }>("SELECT count(*)::int AS total, md5(string_agg(record::text, ',' ORDER BY user_id, position)) AS digest FROM pin_followers"),
  profiles: await db().query("SELECT urn, publication_count, source, fetched_at FROM profiles ORDER BY urn"),
  publications: await db().query("SELECT count(*)::int AS total, md5(string_agg(record::text, ',' ORDER BY urn, position)) AS digest FROM publications"),
});

const emptyStore = async () => {
  for (const table of ["events", "pin_followers", "pin_users", "publications", "profiles"]) await db().query(`DELETE FROM ${table}`);
};

const exportToString = async (kind: ExportKind): Promise<string> => {
  const out = new PassThrough();
  const pieces: Buffer[] = [];
  out.on("data", (piece: Buffer) => pieces.push(piece));
  await exportRecords(db(), kind, out);
  out.end();
  return Buffer.concat(pieces).toString("utf8");
};

/** What the API answers for every demo record (follower pages: the first, second and last of each user). */
const apiAnswers = async (): Promise<string[]> => {
  const store = createStoreConnector({ db: async () => db(), cursors, cacheTtlMs: 0 });
  const answers: string[] = [];
  const text = (result: Awaited<ReturnType<typeof store.lookup>>) => (result.found ? result.dataJson : "not found");
  for (const record of demo.events) answers.push(text(await store.lookup(eventSource, { eventId: record.event_id }, context)));
  for (const list of demo.followerLists) {
    const last = Math.max(0, Math.floor((list.followers.length - 1) / FOLLOWERS_PAGE_SIZE) * FOLLOWERS_PAGE_SIZE);
    for (const offset of new Set([0, FOLLOWERS_PAGE_SIZE, last])) {
      answers.push(text(await store.lookup(followersSource, { userId: list.userid, offset }, context)));
    }
  }
  for (const list of demo.publicationLists) {
    const pages = Math.ceil(list.publications.length / PUBLICATIONS_PAGE_SIZE) + 1;
    for (let page = 1; page <= pages; page += 1) answers.push(text(await store.lookup(publicationsSource, { urn: list.urn, page }, context)));
  }
  return answers;
};

const event = demo.events[0];
const otherEvent = demo.events[1];
const followerList = demo.followerLists.find((list) => list.followers.length === 30);
const publicationList = demo.publicationLists.find((list) => list.publications.length === 7);

afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("import: checks every value and reports bad ones by line", () => {
  it("imports the good lines of an NDJSON file and skips the bad ones, with their line numbers", async () => {
    if (!event || !otherEvent || !followerList || !publicationList) throw new Error("demo fixtures missing");
    await emptyStore();
    const { title: _title, ...untitled } = otherEvent;
    const badPublications = { urn: "urn:li:member:bad", publications: [{ title: "no url" }] };
    const lines = [
      JSON.stringify(event),
      "{not json",
      JSON.stringify(untitled),
      "",
      JSON.stringify({ ...followerList, node_id: nodeIdFor(followerList.userid) }),
      JSON.stringify(badPublications),
      JSON.stringify({ hello: "world" }),
      JSON.stringify({ urn: publicationList.urn, publications: publicationList.publications }),
      JSON.stringify({ userid: "12", node_id: nodeIdFor("13"), followers: [] }),
    ];
    const report = await importFiles(db(), [{ path: file("mixed.ndjson", `${lines.join("\r\n")}\n`) }]);
    expect(report).toMatchObject({ records: 3, written: 3, unchanged: 0, skipped: 5, aborted: false });
    expect(report).toMatchObject({ events: 1, followerLists: 1, followers: 30, publicationLists: 1, publications: 7 });
    expect(report.problems.map((problem) => [problem.line, problem.message])).toEqual([
      [2, expect.stringMatching(/^invalid JSON/)],
      [3, expect.stringMatching(/^title: /)],
      [6, expect.stringMatching(/^publications\.0\.publication: /)],
      [7, expect.stringMatching(/^not a record/)],
      [9, expect.stringMatching(/^node_id: does not belong to userid 12/)],
    ]);
    const stored = await db().query<{ record: string; source: string }>("SELECT record::text AS record, source FROM events");
    expect(stored).toHaveLength(1);
    expect(JSON.parse(stored[0]?.record ?? "null")).toEqual(event);
    expect(stored[0]?.source).toBe("import");
  });

  it("reads a pretty-printed JSON array, reporting a bad element by the line it starts on", async () => {
    if (!event || !otherEvent) throw new Error("demo fixtures missing");
    await emptyStore();
    const parts = [event, { ...otherEvent, lat: 500 }, { event: otherEvent }].map((value) => JSON.stringify(value, null, 2));
    const content = `[\n${parts.join(",\n")}\n]\n`;
    const badLine = 2 + (parts[0] ?? "").split("\n").length;
    const report = await importFiles(db(), [{ path: file("events.json", content) }]);
    expect(report).toMatchObject({ records: 2, skipped: 1, events: 2 });
    expect(report.problems).toEqual([{ file: expect.stringMatching(/events\.json$/), line: badLine, message: expect.stringMatching(/^lat: /) }]);
  });

  it("reads a single JSON object in a .json file", async () => {
    if (!followerList) throw new Error("demo fixtures missing");
    await emptyStore();
    const report = await importFiles(db(), [{ path: file("one.json", JSON.stringify(followerList, null, 2)) }]);
    expect(report).toMatchObject({ records: 1, written: 1, followers: 30, skipped: 0 });
  });

  it("--strict writes nothing when any value is bad", async () => {
    if (!event || !otherEvent) throw new Error("demo fixtures missing");
    await emptyStore();
    const report = await importFiles(db(), [{ path: file("strict.ndjson", `${JSON.stringify(event)}\n${JSON.stringify({ ...otherEvent, tags: "x" })}\n`) }], {
      strict: true,
    });
    expect(report).toMatchObject({ aborted: true, skipped: 1, written: 0 });
    expect(report.problems[0]).toMatchObject({ line: 2, message: expect.stringMatching(/^tags: /) });
    expect(await db().query("SELECT event_id FROM events")).toEqual([]);

    const good = await importFiles(db(), [{ path: file("strict-good.ndjson", `${JSON.stringify(event)}\n`) }], { strict: true });
    expect(good).toMatchObject({ aborted: false, written: 1, records: 1 });
  });
});

describe("import and export: round trip and idempotence", () => {
  it("export → import gives identical API answers, and the same export again", async () => {
    await emptyStore();
    await seedDemoData(db(), "http://localhost:3000");
    const before = await apiAnswers();
    const exported: Record<ExportKind, string> = {
      events: await exportToString("events"),
      followers: await exportToString("followers"),
      publications: await exportToString("publications"),
    };
    expect(exported.events.split("\n").filter(Boolean)).toHaveLength(40);
    expect(exported.followers.split("\n").filter(Boolean)).toHaveLength(3);

    await emptyStore();
    const report = await importFiles(db(), [
      { path: file("events.ndjson", exported.events) },
      { path: file("followers.ndjson", exported.followers) },
      { path: file("publications.ndjson", exported.publications) },
    ]);
    expect(report).toMatchObject({ skipped: 0, events: 40, followerLists: 3, followers: 10_030, publicationLists: 3, publications: 52 });
    expect(await apiAnswers()).toEqual(before);
    for (const kind of ["events", "followers", "publications"] as const) expect(await exportToString(kind)).toBe(exported[kind]);
  }, 60_000);

  it("importing the same files twice changes nothing (not even fetched_at)", async () => {
    const files = ["events", "followers", "publications"].map((kind) => ({ path: path.join(directory, `${kind}.ndjson`) }));
    const before = await snapshot();
    const again = await importFiles(db(), files);
    expect(again).toMatchObject({ records: 46, written: 0, unchanged: 46, skipped: 0 });
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  it("re-importing an export of the demo store writes nothing and keeps the demo source; a changed record is written as imported", async () => {
    if (!event) throw new Error("demo fixtures missing");
    await emptyStore();
    await seedDemoData(db(), "http://localhost:3000");
    const files = await Promise.all(
      (["events", "followers", "publications"] as const).map(async (kind) => ({ path: file(`demo-${kind}.ndjson`, await exportToString(kind)) })),
    );
    const before = await snapshot();
    const again = await importFiles(db(), files);
    expect(again).toMatchObject({ records: 46, written: 0, unchanged: 46, skipped: 0 });
    expect(await snapshot()).toEqual(before);
    expect(new Set(before.events.map((row) => (row as { source: string }).source))).toEqual(new Set(["demo"]));

    const edited = await importFiles(db(), [{ path: file("edited.ndjson", `${JSON.stringify({ ...event, title: "Renamed" })}\n${JSON.stringify(otherEvent)}\n`) }]);
    expect(edited).toMatchObject({ records: 2, written: 1, unchanged: 1 });
    const sources = await db().query<{ event_id: string; source: string }>("SELECT event_id, source FROM events WHERE event_id = ANY($1::text[]) ORDER BY event_id", [
      [event.event_id, otherEvent?.event_id],
    ]);
    expect(sources).toEqual([
      { event_id: event.event_id, source: "import" },
      { event_id: otherEvent?.event_id, source: "demo" },
    ]);
  }, 60_000);
});
