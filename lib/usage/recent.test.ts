import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createKey } from "@/lib/keys/repository";
import { createUser } from "@/lib/users/repository";
import { pgliteDatabase } from "@/tests/support/databases";
import { parseSummary, recentLookups, recordConsoleLookup } from "./recent";

const SECRET = "unit-test-secret-unit-test-secret-0123456789";
const EVENT_OPERATIONS = ["event_details", "event_details_id"] as const;
const database = pgliteDatabase();
let db: Db;

const newUser = async (email: string) =>
  (await createUser(db, { email, name: email, role: "analyst", passwordHash: null, creditAllowance: 0 })).id;

const newKey = async (ownerId: string | null) =>
  (await createKey(db, SECRET, { name: "k", ownerId, credits: 100, qpsLimit: 5, expiresAt: null })).key.id;

/**
 * One usage row, `secondsAgo` before now; run in the console by the key's owner unless `channel`
 * says it came from an API-key call or a batch.
 */
const usage = async (
  keyId: string,
  operation: string,
  status: number,
  paramsSummary: string,
  secondsAgo: number,
  channel: "console" | "api" = "console",
) => {
  const requestId = crypto.randomUUID();
  await db.query(
    `INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at)
     VALUES ($1, $2, $3, $4, $5, 1, $6, now() - make_interval(secs => $7))`,
    [requestId, keyId, operation, status, status === 200 ? 4 : 0, paramsSummary, secondsAgo],
  );
  const owner = (await db.query<{ owner_id: string | null }>("SELECT owner_id FROM api_keys WHERE id = $1", [keyId]))[0]?.owner_id;
  if (channel === "console" && owner) await recordConsoleLookup(db, owner, requestId);
};

beforeAll(async () => {
  db = await database.open();
});
afterAll(async () => {
  await db?.close();
  await database.cleanup();
});

describe("recentLookups", () => {
  it("lists the user's successful lookups newest first, one per distinct parameters", async () => {
    const user = await newUser("recent-a@example.com");
    const consoleKey = await newKey(user);
    const otherKey = await newKey(user);
    await usage(consoleKey, "event_details_id", 200, "event_id=1000000000000001", 50);
    await usage(consoleKey, "event_details_id", 200, "event_id=1000000000000002", 40);
    await usage(otherKey, "event_details", 200, "url=https://events.demo.test/events/1000000000000003/", 30);
    await usage(consoleKey, "event_details_id", 200, "event_id=1000000000000001", 10);

    const items = await recentLookups(db, user, EVENT_OPERATIONS, 10);
    expect(items.map((item) => item.summary)).toEqual([
      "event_id=1000000000000001",
      "url=https://events.demo.test/events/1000000000000003/",
      "event_id=1000000000000002",
    ]);
    expect(items[0]).toMatchObject({
      operation: "event_details_id",
      params: { event_id: "1000000000000001" },
      truncated: false,
    });
    expect(items[1]).toMatchObject({
      operation: "event_details",
      params: { url: "https://events.demo.test/events/1000000000000003/" },
    });
    // The newest of the repeated lookup decides its place and time.
    const newest = items[0]?.at ?? "";
    expect(Date.now() - Date.parse(newest)).toBeLessThan(60_000);
    expect(Date.parse(newest)).toBeGreaterThan(Date.parse(items[1]?.at ?? ""));
  });

  it("leaves out failed lookups: 400, 402, 404, 429, 500 and pending reservations", async () => {
    const user = await newUser("recent-b@example.com");
    const key = await newKey(user);
    for (const status of [400, 402, 404, 429, 500, 102]) {
      await usage(key, "event_details_id", status, `event_id=${status}`, 5);
    }
    await usage(key, "event_details_id", 200, "event_id=1000000000000005", 20);
    const items = await recentLookups(db, user, EVENT_OPERATIONS, 10);
    expect(items.map((item) => item.params)).toEqual([{ event_id: "1000000000000005" }]);
  });

  it("leaves out lookups made with an API key or by a batch, even with the console's own key", async () => {
    const user = await newUser("recent-channel@example.com");
    const key = await newKey(user);
    await usage(key, "event_details_id", 200, "event_id=1000000000000021", 30);
    await usage(key, "event_details_id", 200, "event_id=1000000000000022", 20, "api");
    await usage(key, "event_details_id", 200, "event_id=1000000000000023", 10, "api");
    const items = await recentLookups(db, user, EVENT_OPERATIONS, 10);
    expect(items.map((item) => item.summary)).toEqual(["event_id=1000000000000021"]);
  });

  it("shows only the asked operations", async () => {
    const user = await newUser("recent-c@example.com");
    const key = await newKey(user);
    await usage(key, "followers", 200, "userid=2000000002", 5);
    await usage(key, "get_user_publications", 200, "urn=urn:li:member:3000000001&page=2", 6);
    await usage(key, "event_details_id", 200, "event_id=1000000000000009", 7);

    expect((await recentLookups(db, user, EVENT_OPERATIONS, 10)).map((item) => item.operation)).toEqual(["event_details_id"]);
    const publications = await recentLookups(db, user, ["get_user_publications"], 10);
    expect(publications.map((item) => item.params)).toEqual([{ urn: "urn:li:member:3000000001", page: "2" }]);
    expect(await recentLookups(db, user, [], 10)).toEqual([]);
  });

  it("never shows another user's lookups, nor those of keys without an owner", async () => {
    const alice = await newUser("recent-alice@example.com");
    const bob = await newUser("recent-bob@example.com");
    await usage(await newKey(bob), "event_details_id", 200, "event_id=1000000000000011", 5);
    await usage(await newKey(null), "event_details_id", 200, "event_id=1000000000000012", 5);
    expect(await recentLookups(db, alice, EVENT_OPERATIONS, 10)).toEqual([]);
    expect((await recentLookups(db, bob, EVENT_OPERATIONS, 10)).map((item) => item.summary)).toEqual([
      "event_id=1000000000000011",
    ]);
  });

  it("returns at most `limit` items", async () => {
    const user = await newUser("recent-d@example.com");
    const key = await newKey(user);
    for (let index = 1; index <= 15; index += 1) {
      await usage(key, "event_details_id", 200, `event_id=${1000000000000000 + index}`, 100 - index);
    }
    const items = await recentLookups(db, user, EVENT_OPERATIONS, 5);
    expect(items).toHaveLength(5);
    expect(items[0]?.params).toEqual({ event_id: "1000000000000015" });
  });

  it("marks a summary whose value may have been cut as truncated", async () => {
    const user = await newUser("recent-e@example.com");
    const key = await newKey(user);
    const longUrl = `https://events.demo.test/events/1000000000000001/?${"x".repeat(200)}`;
    await usage(key, "event_details", 200, `url=${longUrl.slice(0, 120)}`, 5);
    const [item] = await recentLookups(db, user, EVENT_OPERATIONS, 10);
    expect(item?.truncated).toBe(true);
  });
});

describe("parseSummary", () => {
  it("keeps an '&' inside a url value", () => {
    expect(parseSummary("url=https://events.demo.test/events/1/?a=1&b=2")).toEqual({
      url: "https://events.demo.test/events/1/?a=1&b=2",
    });
  });

  it("splits the parameters of a followers page", () => {
    expect(parseSummary("node_id=VXNlcjoy&cursor=abc.def")).toEqual({ node_id: "VXNlcjoy", cursor: "abc.def" });
  });

  it("drops unknown names and empty input", () => {
    expect(parseSummary("")).toEqual({});
    expect(parseSummary("handle=x")).toEqual({});
  });
});
