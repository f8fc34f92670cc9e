import fs from "node:fs";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FollowerEntry } from "@/lib/api/records";
import { nodeIdFor } from "@/lib/connectors/node-id";
import { followerJson } from "@/lib/connectors/store-records";
import { openForSuite, pgliteDatabase } from "@/tests/support/databases";
import { exportRecords } from "./export";
import { importFiles } from "./importer";

/**
 * Memory of imports, measured with process.memoryUsage() sampled while they run (deltas over
 * the JS heap before the import; PGlite's WASM memory is outside it and does not grow with the
 * file). Streaming keeps the heap flat however many records a file has. One list is written in
 * one call of upsertFollowerList, so a single list of 200,000 followers on one line (~70 MB of
 * text) is held as entries while it is written; the record writer serialises them one statement
 * at a time. Both shapes stay under the issue's ~200 MB bound (measured: about +90 MB).
 */
const FOLLOWERS = 200_000;
const USER_ID = "4000000001";
const STREAMING_HEAP_BOUND_BYTES = 200 * 1024 * 1024;
const SINGLE_LIST_HEAP_BOUND_BYTES = 200 * 1024 * 1024;

const database = pgliteDatabase();
const directory = fs.mkdtempSync(path.join(os.tmpdir(), "sl-import-memory-"));
const db = openForSuite(database);
const follower = (index: number): FollowerEntry => {
  const entityId = String(5_000_000_000 + index);
  const isPrivate = index % 7 === 0;
  return {
    node: {
      username: `follower_${index}`,
      status: "ok",
      fullName: `Follower Number ${index}`,
      imageMediumUrl: isPrivate ? null : `https://images.demo.test/avatars/${entityId}_medium.jpg`,
      imageXlargeUrl: isPrivate ? null : `https://images.demo.test/avatars/${entityId}_xlarge.jpg`,
      entityId,
      isPrivateProfile: isPrivate,
      verifiedIdentity: isPrivate ? null : { verified: null },
      id: nodeIdFor(entityId),
      __typename: "User",
    },
    cursor: null,
  };
};

/** Writes the file piece by piece, so the test itself never holds a 70 MB line. */
const writeFollowersFile = async (file: string, lists: number): Promise<number> => {
  const out = fs.createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  const perList = FOLLOWERS / lists;
  for (let list = 0; list < lists; list += 1) {
    const userId = String(Number(USER_ID) + list);
    await write(`{"userid":"${userId}","node_id":"${nodeIdFor(userId)}","followers":[`);
    for (let first = 0; first < perList; first += 1000) {
      const entries = [];
      for (let index = first; index < Math.min(first + 1000, perList); index += 1) entries.push(followerJson(follower(list * perList + index)));
      await write((first === 0 ? "" : ",") + entries.join(","));
    }
    await write("]}\n");
  }
  out.end();
  await once(out, "close");
  return fs.statSync(file).size;
};

const mb = (value: number) => Math.round(value / 1024 / 1024);

/** Imports a file, sampling the heap every 10 ms; the peak delta over the heap before. */
const measuredImport = async (file: string, maxRecordBytes?: number) => {
  const baseline = process.memoryUsage();
  const peak = { rss: baseline.rss, heapUsed: baseline.heapUsed };
  const sample = () => {
    const now = process.memoryUsage();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
  };
  const sampler = setInterval(sample, 10);
  const startedAt = Date.now();
  try {
    const report = await importFiles(db(), [{ path: file }], { onProgress: sample, maxRecordBytes });
    sample();
    return { report, elapsedMs: Date.now() - startedAt, heapDelta: peak.heapUsed - baseline.heapUsed, rssDelta: peak.rss - baseline.rss };
  } finally {
    clearInterval(sampler);
  }
};

afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("import: memory", () => {
  it("streams 200,000 followers in 400 lists (70 MB) with a flat heap, under 200 MB", async () => {
    const file = path.join(directory, "many-lists.ndjson");
    const bytes = await writeFollowersFile(file, 400);
    const { report, elapsedMs, heapDelta, rssDelta } = await measuredImport(file);
    console.log(`400 lists, 200k followers: ${mb(bytes)} MB in ${elapsedMs} ms; peak heapUsed +${mb(heapDelta)} MB, rss +${mb(rssDelta)} MB`);
    expect(report).toMatchObject({ records: 400, written: 400, followers: FOLLOWERS, skipped: 0 });
    expect(heapDelta).toBeLessThan(STREAMING_HEAP_BOUND_BYTES);
  }, 120_000);

  it("imports one list of 200,000 followers on one line (70 MB) within its bound, and exports it byte for byte", async () => {
    const input = path.join(directory, "one-list.ndjson");
    const bytes = await writeFollowersFile(input, 1);
    expect(bytes).toBeGreaterThan(60 * 1024 * 1024);
    // Past the default per-record limit (IMPORT_MAX_RECORD_BYTES): a deployment with lists this big raises it.
    const { report, elapsedMs, heapDelta, rssDelta } = await measuredImport(input, 128 * 1024 * 1024);
    console.log(`1 list, 200k followers on one line: ${mb(bytes)} MB in ${elapsedMs} ms; peak heapUsed +${mb(heapDelta)} MB, rss +${mb(rssDelta)} MB`);
    expect(report).toMatchObject({ records: 1, written: 1, followers: FOLLOWERS, skipped: 0 });
    expect(heapDelta).toBeLessThan(SINGLE_LIST_HEAP_BOUND_BYTES);
    const stored = await db().query<{ follower_count: number }>("SELECT follower_count FROM pin_users WHERE user_id = $1", [USER_ID]);
    expect(stored).toEqual([{ follower_count: FOLLOWERS }]);

    const output = path.join(directory, "exported.ndjson");
    const out = fs.createWriteStream(output);
    await exportRecords(db(), "followers", out, { source: "import" });
    out.end();
    await once(out, "close");
    // The other users of the first test come after USER_ID: the first line is this list.
    const firstLine = async (file: string) => {
      const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
      const pieces: Buffer[] = [];
      for await (const chunk of stream) {
        const buffer: Buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
        const newline = buffer.indexOf(10);
        if (newline >= 0) {
          pieces.push(buffer.subarray(0, newline));
          stream.destroy();
          break;
        }
        pieces.push(buffer);
      }
      return Buffer.concat(pieces);
    };
    expect((await firstLine(output)).equals(await firstLine(input))).toBe(true);
  }, 120_000);
});
