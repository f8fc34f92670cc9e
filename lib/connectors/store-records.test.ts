import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventSchema, followerEntrySchema, publicationSchema } from "@/lib/records/records";
import { openDb, type Db } from "@/lib/database";
import { demoFixtures } from "@/lib/demo/fixtures";
import { generateDemoData } from "@/lib/demo/generate";
import { seedDemoData, seedIfEmpty } from "@/lib/demo/seed";
import { nodeIdFor } from "@/lib/records/node-id";
import { eventJson, upsertEvents, upsertFollowerList, upsertPublicationList } from "./store-records";

const PUBLIC_URL = "http://localhost:3000";
const demo = generateDemoData(PUBLIC_URL);

let db: Db;
let dataDir: string;

const count = async (table: string, where = "TRUE", params: unknown[] = []): Promise<number> => {
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${table} WHERE ${where}`, params);
  return rows[0]?.total ?? -1;
};

const tableCounts = async () => ({
  events: await count("events"),
  pinUsers: await count("pin_users"),
  pinFollowers: await count("pin_followers"),
  profiles: await count("profiles"),
  publications: await count("publications"),
});

const storedText = async (sql: string, params: unknown[]): Promise<string> => {
  const rows = await db.query<{ record: string }>(sql, params);
  const record = rows[0]?.record;
  if (record === undefined) throw new Error(`No row for ${sql}`);
  return record;
};

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-records-"));
  db = await openDb({ dataDir, timeoutMs: 5000 });
}, 120_000);

afterAll(async () => {
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("demo seed through the record writers", () => {
  const expected = { events: 40, pinUsers: 3, pinFollowers: 10_030, profiles: 3, publications: 52 };

  it("seeds an empty store, and only an empty one", async () => {
    expect(await seedIfEmpty(db, PUBLIC_URL)).toBe(true);
    expect(await tableCounts()).toEqual(expected);
    expect(await seedIfEmpty(db, PUBLIC_URL)).toBe(false);
  }, 60_000);

  it("is idempotent: seeding again leaves the same rows", async () => {
    const before = await db.query<{ event_id: string; record: string }>(
      "SELECT event_id, record::text AS record FROM events ORDER BY event_id",
    );
    expect(await seedDemoData(db, PUBLIC_URL)).toEqual({ events: 40, followers: 10_030, publications: 52 });
    expect(await tableCounts()).toEqual(expected);
    const after = await db.query<{ event_id: string; record: string }>(
      "SELECT event_id, record::text AS record FROM events ORDER BY event_id",
    );
    expect(after).toEqual(before);
  }, 60_000);

  it("stores the pin-board users with node ids and follower counts", async () => {
    const users = await db.query<{ user_id: string; node_id: string; follower_count: number; source: string }>(
      "SELECT user_id, node_id, follower_count, source FROM pin_users ORDER BY user_id",
    );
    expect(users).toEqual(
      demoFixtures.pinUsers.map((user) => ({
        user_id: user.userid,
        node_id: nodeIdFor(user.userid),
        follower_count: user.followerCount,
        source: "demo",
      })),
    );
    expect(await count("pin_followers", "user_id = $1", ["2000000001"])).toBe(10_000);
    const positions = await db.query<{ low: number; high: number }>(
      "SELECT min(position) AS low, max(position) AS high FROM pin_followers WHERE user_id = $1",
      ["2000000001"],
    );
    expect(positions[0]).toEqual({ low: 0, high: 9_999 });
  });

  it("stores records as the API's JSON text, in the schema's key order", async () => {
    const eventText = await storedText("SELECT record::text AS record FROM events WHERE event_id = $1", [
      demoFixtures.xssProbeEventId,
    ]);
    const generated = demo.events.find((event) => event.event_id === demoFixtures.xssProbeEventId);
    if (!generated) throw new Error("XSS probe event missing from the demo data");
    expect(eventText).toBe(JSON.stringify(generated));
    expect(Object.keys(JSON.parse(eventText) as object)).toEqual(Object.keys(eventSchema.shape));

    const followerText = await storedText(
      "SELECT record::text AS record FROM pin_followers WHERE user_id = $1 AND position = 0",
      ["2000000001"],
    );
    const follower = followerEntrySchema.parse(JSON.parse(followerText));
    expect(follower.node.fullName).toBe("José Muñoz");
    expect(Object.keys(JSON.parse(followerText) as object)).toEqual(["node", "cursor"]);
    expect(Object.keys(follower.node)).toEqual(Object.keys(followerEntrySchema.shape.node.shape));

    const publicationText = await storedText(
      "SELECT record::text AS record FROM publications WHERE urn = $1 AND position = 44",
      ["urn:li:member:3000000001"],
    );
    expect(Object.keys(JSON.parse(publicationText) as object)).toEqual(Object.keys(publicationSchema.shape));
  });
});

describe("record writers", () => {
  it("rewrites an event's keys into the schema's order and drops unknown keys", async () => {
    const source = demo.events[0];
    if (!source) throw new Error("no demo event");
    // Keys listed before a spread keep their (first) position: this object starts with is_canceled.
    const reordered = Object.assign({ is_canceled: source.is_canceled, title: source.title }, source, { extra: "dropped" });
    expect(Object.keys(reordered)[0]).toBe("is_canceled");
    const written = await upsertEvents(db, [reordered], "import");
    expect(written).toBe(1);
    const text = await storedText("SELECT record::text AS record FROM events WHERE event_id = $1", [source.event_id]);
    expect(text).toBe(eventJson(source));
    expect(text).toBe(JSON.stringify(source));
  });

  it("lets the last copy of a repeated event_id win within one call", async () => {
    const source = demo.events[1];
    if (!source) throw new Error("no demo event");
    const written = await upsertEvents(
      db,
      [{ ...source, title: "first" }, { ...source, title: "second" }],
      "import",
    );
    expect(written).toBe(1);
    const rows = await db.query<{ title: string; source: string }>(
      "SELECT record->>'title' AS title, source FROM events WHERE event_id = $1",
      [source.event_id],
    );
    expect(rows).toEqual([{ title: "second", source: "import" }]);
  });

  it("replaces a follower list wholesale, shrinking it when the new one is shorter", async () => {
    const followers = demo.followerLists[0]?.followers.slice(0, 3) ?? [];
    expect(await upsertFollowerList(db, { userid: "2000000099", followers }, "import")).toBe(3);
    expect(await upsertFollowerList(db, { userid: "2000000099", followers: followers.slice(1) }, "import")).toBe(2);
    expect(await count("pin_followers", "user_id = $1", ["2000000099"])).toBe(2);
    const users = await db.query<{ follower_count: number }>(
      "SELECT follower_count FROM pin_users WHERE user_id = $1",
      ["2000000099"],
    );
    expect(users).toEqual([{ follower_count: 2 }]);
    const first = await storedText(
      "SELECT record::text AS record FROM pin_followers WHERE user_id = $1 AND position = 0",
      ["2000000099"],
    );
    expect(JSON.parse(first)).toEqual(followers[1]);
  });

  it("writes 200,000 followers in batches within seconds", async () => {
    const template = demo.followerLists[0]?.followers ?? [];
    const followers = Array.from({ length: 200_000 }, (_, index) => {
      const entry = template[index % template.length];
      if (!entry) throw new Error("no template follower");
      return entry;
    });
    const startedAt = performance.now();
    expect(await upsertFollowerList(db, { userid: "2000000098", followers }, "import")).toBe(200_000);
    const elapsedMs = performance.now() - startedAt;
    expect(await count("pin_followers", "user_id = $1", ["2000000098"])).toBe(200_000);
    expect(elapsedMs).toBeLessThan(60_000);
  }, 120_000);

  it("replaces a publication list and keeps an empty profile", async () => {
    const publications = demo.publicationLists[0]?.publications.slice(0, 4) ?? [];
    expect(await upsertPublicationList(db, { urn: "urn:li:member:3000000099", publications }, "import")).toBe(4);
    expect(await upsertPublicationList(db, { urn: "urn:li:member:3000000099", publications: [] }, "import")).toBe(0);
    expect(await count("publications", "urn = $1", ["urn:li:member:3000000099"])).toBe(0);
    const profiles = await db.query<{ publication_count: number }>(
      "SELECT publication_count FROM profiles WHERE urn = $1",
      ["urn:li:member:3000000099"],
    );
    expect(profiles).toEqual([{ publication_count: 0 }]);
  });

  it("rolls a list back as a whole when one of its writes fails", async () => {
    const followers = demo.followerLists[1]?.followers ?? [];
    await upsertFollowerList(db, { userid: "2000000097", followers }, "import");
    // A Db whose follower inserts fail after the delete and the user upsert have run.
    const failing: Db = {
      ...db,
      transaction: (work) =>
        db.transaction((tx) =>
          work({
            ...tx,
            query: async <Row>(text: string, params?: unknown[]): Promise<Row[]> => {
              if (text.startsWith("INSERT INTO pin_followers")) throw new Error("simulated failure");
              return tx.query<Row>(text, params);
            },
          }),
        ),
    };
    await expect(
      upsertFollowerList(failing, { userid: "2000000097", followers: followers.slice(0, 5) }, "import"),
    ).rejects.toThrow("simulated failure");
    expect(await count("pin_followers", "user_id = $1", ["2000000097"])).toBe(30);
    const users = await db.query<{ follower_count: number }>(
      "SELECT follower_count FROM pin_users WHERE user_id = $1",
      ["2000000097"],
    );
    expect(users).toEqual([{ follower_count: 30 }]);
  });
});
