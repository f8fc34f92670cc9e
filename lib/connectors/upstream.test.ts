import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { eventDetailsId as eventById } from "@/lib/operations/event-details-id";
import { followers } from "@/lib/operations/followers";
import { publications } from "@/lib/operations/publications";
import { runLookup, type PipelineResult } from "@/lib/api/pipeline";
import type { Operation } from "@/lib/operations";
import type { EventRecord } from "@/lib/records/records";
import { createAccountReader } from "@/lib/usage/account-reader";
import { createSettler } from "@/lib/credits/settle";
import type { Db } from "@/lib/db/client";
import { generateDemoData } from "@/lib/demo/generate";
import { createAuthenticator } from "@/lib/keys/authenticate";
import { createKey } from "@/lib/keys/repository";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { createRateLimiter } from "@/lib/ratelimit/limiter";
import type { Services } from "@/lib/services";
import { createUser } from "@/lib/users/repository";
import { PROVIDER_FOLLOWERS_PAGE, providerNodeId, startFakeProvider, type FakeProvider } from "@/tests/support/fake-provider";
import { pgliteDatabase } from "@/tests/support/databases";
import { creditsOf as storedCredits, usageRowsOf } from "@/tests/support/usage";
import { createCursorCodec } from "./cursor";
import { nodeIdFor } from "@/lib/records/node-id";
import { saveProviderKey } from "./provider-keys";
import { selectConnector, type DataConnector, type UpstreamSettings } from "./select";
import { createStoreConnector } from "./store";
import { createSuppressionList } from "./suppression";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import { log } from "@/lib/log";
import { upsertEvents } from "./store-records";

/**
 * The upstream connector through the real pipeline (runLookup), a real PGlite database (keys,
 * credits, usage rows) and a real HTTP provider (tests/support/fake-provider.ts).
 */
const SECRET = "upstream-test-secret-upstream-test-secret-0123";
const SHARED_KEY = "shared-provider-key-0001";
const demo = generateDemoData("http://localhost:3000");
const database = pgliteDatabase();
const cursors = createCursorCodec(crypto.randomBytes(32));
const sealKey = crypto.randomBytes(32);

let db: Db;
let provider: FakeProvider;
let skewMs = 0;
const clock = () => Date.now() + skewMs;

const baseSettings = (): UpstreamSettings => ({
  DATA_SOURCE: "upstream",
  UPSTREAM_BASE_URL: provider.url,
  UPSTREAM_API_KEY: SHARED_KEY,
  UPSTREAM_KEY_MODE: "shared",
  UPSTREAM_TIMEOUT_MS: 1000,
  UPSTREAM_MAX_CONCURRENCY: 16,
  UPSTREAM_RETRIES: 2,
  UPSTREAM_MAX_RETRY_WAIT_MS: 50,
  UPSTREAM_BREAKER_THRESHOLD: 50,
  UPSTREAM_BREAKER_COOLDOWN_MS: 30_000,
  CACHE_TTL_EVENTS_S: 86_400,
  CACHE_TTL_FOLLOWERS_S: 3600,
  CACHE_TTL_PUBLICATIONS_S: 86_400,
  CACHE_HIT_CREDITS: "full",
});

const build = (overrides: Partial<UpstreamSettings> = {}): { services: Services; connector: DataConnector } => {
  const connector = selectConnector({
    settings: { ...baseSettings(), ...overrides },
    db: async () => db,
    cursors,
    store: createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 0 }),
    sealKey,
    now: clock,
    suppressions: createSuppressionList({ db: async () => db, read: suppressedSubjects }),
  });
  const services: Services = {
    db: async () => db,
    authenticator: createAuthenticator({ db: async () => db, verify: createTokenVerifier(SECRET), ttlMs: 1000 }),
    limiter: createRateLimiter({}),
    settler: createSettler(async () => db),
    accounts: createAccountReader(async () => db),
    connector,
    cursors,
    eventSiteHosts: ["events.demo.test"],
  };
  return { services, connector };
};

const newKey = async (credits: number, ownerId: string | null = null) =>
  createKey(db, SECRET, { name: "upstream test", ownerId, credits, qpsLimit: 10_000, expiresAt: null });

const call = (services: Services, spec: Operation, token: string, query: Record<string, string>): Promise<PipelineResult> =>
  runLookup(spec, { authorization: `Bearer ${token}`, query: new URLSearchParams(query), clientAddress: "127.0.0.1" }, services);

type Envelope = { code: number; message: string; data: unknown };
const body = (result: PipelineResult): Envelope => JSON.parse(result.body) as Envelope;

const creditsOf = (keyId: string) => storedCredits(db, keyId);
const usageOf = (keyId: string) => usageRowsOf(db, keyId);

const event = (index: number): EventRecord => {
  const record = demo.events[index];
  if (!record) throw new Error(`no demo event ${index}`);
  return record;
};

const followerList = demo.followerLists.find((list) => list.followers.length === 30);
const publicationList = demo.publicationLists.find((list) => list.publications.length === 45);

const clearCache = async () => {
  await db.query("DELETE FROM upstream_pages");
  await db.query("DELETE FROM upstream_cursors");
  await db.query("DELETE FROM events WHERE source = 'upstream'");
  await db.query("DELETE FROM pin_users WHERE source = 'upstream'");
  await db.query("DELETE FROM profiles WHERE source = 'upstream'");
};

beforeAll(async () => {
  db = await database.open();
  provider = await startFakeProvider();
  provider.keys.set(SHARED_KEY, 1_000_000);
  for (const record of demo.events) provider.events.set(record.event_id, record);
  for (const list of demo.followerLists) provider.followers.set(list.userid, list.followers);
  for (const list of demo.publicationLists) provider.publications.set(list.urn, list.publications);
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await db?.close();
  await database.cleanup();
});

afterEach(async () => {
  provider.reset();
  skewMs = 0;
  vi.restoreAllMocks();
  await clearCache();
});

describe("upstream connector: pass-through of each operation", () => {
  it("serves an event from the provider, then from the cache (miss, then hit; full price both times)", async () => {
    const { services } = build();
    const { key, token } = await newKey(100);
    const record = event(0);

    const first = await call(services, eventById, token, { event_id: record.event_id });
    expect(first.status).toBe(200);
    expect(body(first).data).toEqual({ event: record });
    expect(first.headers["X-Cache"]).toBe("miss");
    expect(Date.parse(first.headers["X-Data-As-Of"] ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]).toMatchObject({
      path: "/v1/eventsite/event_details_id",
      query: { event_id: record.event_id },
      authorization: `Bearer ${SHARED_KEY}`,
    });

    const second = await call(services, eventById, token, { event_id: record.event_id });
    expect(second.status).toBe(200);
    expect(second.headers["X-Cache"]).toBe("hit");
    expect(second.body.replace(/"requestId":"[^"]+"/, "")).toBe(first.body.replace(/"requestId":"[^"]+"/, ""));
    expect(second.headers["X-Data-As-Of"]).toBe(first.headers["X-Data-As-Of"]);
    expect(provider.calls).toHaveLength(1);
    expect(await creditsOf(key.id)).toBe(92);
    expect((await usageOf(key.id)).map((row) => [row.status, row.credits_charged])).toEqual([
      [200, 4],
      [200, 4],
    ]);

    const stored = await db.query<{ source: string }>("SELECT source FROM events WHERE event_id = $1", [record.event_id]);
    expect(stored).toEqual([{ source: "upstream" }]);
  });

  it("pages followers with our own signed cursors, mapped to the provider's", async () => {
    const { services } = build();
    const { token } = await newKey(100);
    const list = followerList;
    if (!list) throw new Error("no demo follower list of 30");

    const first = await call(services, followers, token, { userid: list.userid });
    expect(first.status).toBe(200);
    const page1 = body(first).data as { followers: unknown[]; node_id: string; page_info: { has_next_page: boolean; end_cursor: string | null } };
    expect(page1.node_id).toBe(nodeIdFor(list.userid));
    expect(page1.followers).toEqual(list.followers.slice(0, PROVIDER_FOLLOWERS_PAGE));
    expect(page1.page_info.has_next_page).toBe(true);
    const endCursor = page1.page_info.end_cursor;
    if (endCursor === null) throw new Error("no end cursor");
    expect(cursors.decode(endCursor)).toEqual({ userId: list.userid, offset: PROVIDER_FOLLOWERS_PAGE });

    const second = await call(services, followers, token, { node_id: page1.node_id, cursor: endCursor });
    expect(second.status).toBe(200);
    const page2 = body(second).data as typeof page1;
    expect(page2.followers).toEqual(list.followers.slice(PROVIDER_FOLLOWERS_PAGE));
    expect(page2.page_info).toEqual({ has_next_page: false, end_cursor: null });

    expect(provider.calls.map((seen) => seen.query)).toEqual([
      { userid: list.userid },
      { node_id: providerNodeId(list.userid), cursor: expect.any(String) },
    ]);

    // Both pages are cached: the same answers again, without the provider.
    const again = await call(services, followers, token, { node_id: page1.node_id, cursor: endCursor });
    expect(again.headers["X-Cache"]).toBe("hit");
    expect(body(again).data).toEqual(page2);
    expect(provider.calls).toHaveLength(2);

    // A tampered cursor never reaches the provider.
    const tampered = await call(services, followers, token, { node_id: page1.node_id, cursor: `${endCursor}x` });
    expect(tampered.status).toBe(400);
    expect(provider.calls).toHaveLength(2);
  });

  it("serves publication pages, and a page past the end with the real total", async () => {
    const { services } = build();
    const { token } = await newKey(100);
    const list = publicationList;
    if (!list) throw new Error("no demo publication list of 45");

    const pages = [];
    for (const page of [1, 2, 3, 4, 5, 6]) {
      const result = await call(services, publications, token, { urn: list.urn, page: String(page) });
      expect(result.status).toBe(200);
      expect(result.headers["X-Cache"]).toBe("miss");
      pages.push(body(result).data as { page: number; total: number; has_more: boolean; data: unknown[] });
    }
    expect(pages.flatMap((page) => page.data)).toEqual(list.publications);
    expect(pages.map((page) => [page.page, page.total, page.has_more])).toEqual([
      [1, 45, true],
      [2, 45, true],
      [3, 45, true],
      [4, 45, true],
      [5, 45, false],
      [6, 45, false],
    ]);
    const hit = await call(services, publications, token, { urn: list.urn, page: "3" });
    expect(hit.headers["X-Cache"]).toBe("hit");
    expect(body(hit).data).toEqual(pages[2]);
    expect(provider.calls).toHaveLength(6);
  });
});

describe("upstream connector: error mapping", () => {
  it("answers 404 for the provider's not found, and charges nothing", async () => {
    const { services } = build();
    const { key, token } = await newKey(10);
    const result = await call(services, eventById, token, { event_id: "999999" });
    expect(result.status).toBe(404);
    expect(body(result)).toMatchObject({ code: 404, message: "Event not found" });
    expect(await creditsOf(key.id)).toBe(10);
    expect(await usageOf(key.id)).toEqual([{ status: 404, credits_charged: 0, reason: "refunded" }]);
  });

  it.each([
    ["an invalid payload", { status: 200, body: { code: 0, message: "success", data: { event: { event_id: "1" } } } }],
    ["a 400 of the provider", { status: 400, body: { code: 400, message: "Missing required parameter: handle", data: null } }],
    ["a 404 page without the envelope", { status: 404, body: "<html>Not Found</html>" }],
    ["a 200 that is not JSON", { status: 200, body: "<html>hello</html>" }],
  ])("answers 500 and refunds for %s", async (_name, behaviour) => {
    const { services } = build();
    const { key, token } = await newKey(10);
    provider.always(behaviour);
    const result = await call(services, eventById, token, { event_id: event(1).event_id });
    expect(result.status).toBe(500);
    expect(body(result)).toMatchObject({ code: 500, message: "Internal server error", data: null });
    expect(await creditsOf(key.id)).toBe(10);
    expect(provider.calls).toHaveLength(1);
  });

  it("answers 500 for the provider's 402 (our provider key is used up), charges nothing and raises the admin status", async () => {
    const { services, connector } = build();
    const { key, token } = await newKey(10);
    const errors = vi.spyOn(log, "error").mockImplementation(() => undefined);
    provider.always({ status: 402, body: { code: 402, message: "apiKey quota is not enough", data: null } });
    const result = await call(services, eventById, token, { event_id: event(2).event_id });
    expect(result.status).toBe(500);
    expect(await creditsOf(key.id)).toBe(10);
    expect(await usageOf(key.id)).toEqual([{ status: 500, credits_charged: 0, reason: "refunded" }]);
    expect(provider.calls).toHaveLength(1);
    const status = connector.upstream?.status();
    expect(status?.status).toBe("key_rejected");
    expect(status?.lastError?.message).toMatch(/402/);
    // Each line as written: its message and its facts.
    const logged = errors.mock.calls.map((args) => JSON.stringify(args)).join("\n");
    expect(logged).toMatch(/refused our provider key/);
    expect(logged).not.toContain(SHARED_KEY);
  });

  it("answers 500 for the provider's 401 (our provider key is invalid)", async () => {
    const { services, connector } = build({ UPSTREAM_API_KEY: "not-a-key-of-the-provider" });
    const { key, token } = await newKey(10);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const result = await call(services, eventById, token, { event_id: event(2).event_id });
    expect(result.status).toBe(500);
    expect(await creditsOf(key.id)).toBe(10);
    expect(provider.calls[0]?.authorization).toBe("Bearer not-a-key-of-the-provider");
    expect(connector.upstream?.status().status).toBe("key_rejected");
  });

  it("waits out a short Retry-After of a 429, then answers", async () => {
    const { services } = build();
    const { token } = await newKey(10);
    provider.queue({ status: 429, body: { code: 429, message: "qps limit exceeded", data: null }, headers: { "Retry-After": "0" } });
    const result = await call(services, eventById, token, { event_id: event(3).event_id });
    expect(result.status).toBe(200);
    expect(provider.calls).toHaveLength(2);
  });

  it("answers 429 with the provider's Retry-After when it is longer than we wait, and refunds", async () => {
    const { services } = build();
    const { key, token } = await newKey(10);
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    provider.always({ status: 429, body: { code: 429, message: "qps limit exceeded", data: null }, headers: { "Retry-After": "30" } });
    const result = await call(services, eventById, token, { event_id: event(3).event_id });
    expect(result.status).toBe(429);
    expect(body(result).message).toBe("qps limit exceeded");
    expect(result.headers["Retry-After"]).toBe("30");
    expect(await creditsOf(key.id)).toBe(10);
    expect(provider.calls).toHaveLength(1);
  });
});

describe("upstream connector: resilience", () => {
  it("retries a 503 with backoff, then answers", async () => {
    const { services } = build();
    const { key, token } = await newKey(10);
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const unavailable = { status: 503, body: { code: 503, message: "Service unavailable", data: null } };
    provider.queue(unavailable, unavailable);
    const result = await call(services, eventById, token, { event_id: event(4).event_id });
    expect(result.status).toBe(200);
    expect(provider.calls).toHaveLength(3);
    expect(await creditsOf(key.id)).toBe(6);
  });

  it("answers 500 after the retries of a provider that keeps failing, and refunds", async () => {
    const { services } = build();
    const { key, token } = await newKey(10);
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    provider.always({ status: 500 });
    const result = await call(services, eventById, token, { event_id: event(4).event_id });
    expect(result.status).toBe(500);
    expect(provider.calls).toHaveLength(3);
    expect(await creditsOf(key.id)).toBe(10);
  });

  it("answers 500 when the provider times out, with the credits refunded", async () => {
    const { services } = build({ UPSTREAM_TIMEOUT_MS: 200, UPSTREAM_RETRIES: 1 });
    const { key, token } = await newKey(10);
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    provider.always({ hang: true });
    const startedAt = Date.now();
    const result = await call(services, eventById, token, { event_id: event(5).event_id });
    expect(result.status).toBe(500);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400);
    expect(provider.calls).toHaveLength(2);
    expect(await creditsOf(key.id)).toBe(10);
    expect(await usageOf(key.id)).toEqual([{ status: 500, credits_charged: 0, reason: "refunded" }]);
  });

  it("opens the breaker after repeated failures, fails fast, and closes after the cool-down", async () => {
    // The breaker (cockatiel) keeps real time: a cool-down short enough to wait out.
    const { services, connector } = build({ UPSTREAM_RETRIES: 0, UPSTREAM_BREAKER_THRESHOLD: 3, UPSTREAM_BREAKER_COOLDOWN_MS: 1500 });
    const { key, token } = await newKey(100);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    provider.always({ status: 503 });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await call(services, eventById, token, { event_id: event(6).event_id })).status).toBe(500);
    }
    expect(provider.calls).toHaveLength(3);
    expect(connector.upstream?.status().breaker.state).toBe("open");

    // Open: fails fast, no provider call, nothing reserved.
    const fast = await call(services, eventById, token, { event_id: event(6).event_id });
    expect(fast.status).toBe(500);
    expect(provider.calls).toHaveLength(3);
    expect(await creditsOf(key.id)).toBe(100);

    // After the cool-down one probe goes out; it succeeds and closes the breaker.
    provider.always(null);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(connector.upstream?.status().breaker.state).toBe("half-open");
    const probe = await call(services, eventById, token, { event_id: event(6).event_id });
    expect(probe.status).toBe(200);
    expect(provider.calls).toHaveLength(4);
    expect(connector.upstream?.status().breaker).toMatchObject({ state: "closed", consecutiveFailures: 0 });
  });

  it("makes exactly one provider call for 50 concurrent identical misses; each request pays for itself", async () => {
    const { services } = build();
    const { key, token } = await newKey(1000);
    provider.always({ delayMs: 200 });
    const record = event(7);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(services, eventById, token, { event_id: record.event_id })),
    );
    expect(provider.calls).toHaveLength(1);
    expect(results.map((result) => result.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(results.map((result) => JSON.stringify(body(result).data))).size).toBe(1);
    expect(results.every((result) => result.headers["X-Cache"] === "miss")).toBe(true);
    expect(await creditsOf(key.id)).toBe(1000 - 50 * 4);
    const usage = await usageOf(key.id);
    expect(usage).toHaveLength(50);
    expect(usage.every((row) => row.status === 200 && row.credits_charged === 4)).toBe(true);
  });

  it("caps concurrent provider calls", async () => {
    const { services, connector } = build({ UPSTREAM_MAX_CONCURRENCY: 2 });
    const { token } = await newKey(1000);
    provider.always({ delayMs: 150 });
    let peak = 0;
    const watcher = setInterval(() => {
      peak = Math.max(peak, connector.upstream?.status().concurrency.inUse ?? 0);
    }, 5);
    const results = await Promise.all(
      [8, 9, 10, 11, 12, 13].map((index) => call(services, eventById, token, { event_id: event(index).event_id })),
    );
    clearInterval(watcher);
    expect(results.every((result) => result.status === 200)).toBe(true);
    expect(provider.calls).toHaveLength(6);
    expect(peak).toBe(2);
  });
});

describe("upstream connector: cache", () => {
  it("serves from the cache until the TTL ends, then asks the provider again", async () => {
    const { services } = build({ CACHE_TTL_EVENTS_S: 60 });
    const { token } = await newKey(100);
    const record = event(14);
    expect((await call(services, eventById, token, { event_id: record.event_id })).headers["X-Cache"]).toBe("miss");
    skewMs = 59_000;
    expect((await call(services, eventById, token, { event_id: record.event_id })).headers["X-Cache"]).toBe("hit");
    expect(provider.calls).toHaveLength(1);
    skewMs = 61_000;
    const expired = await call(services, eventById, token, { event_id: record.event_id });
    expect(expired.headers["X-Cache"]).toBe("miss");
    expect(provider.calls).toHaveLength(2);
    expect(Date.parse(expired.headers["X-Data-As-Of"] ?? "")).toBeGreaterThan(Date.now() + 60_000);
  });

  it("refetches an expired first follower page, and the later pages after it, with the mapped provider cursor", async () => {
    const { services } = build({ CACHE_TTL_FOLLOWERS_S: 60 });
    const { token } = await newKey(100);
    const list = followerList;
    if (!list) throw new Error("no demo follower list of 30");
    type Page = { followers: unknown[]; node_id: string; page_info: { end_cursor: string | null } };
    const first = body(await call(services, followers, token, { userid: list.userid })).data as Page;
    const cursor = first.page_info.end_cursor ?? "";
    await call(services, followers, token, { node_id: first.node_id, cursor });
    expect(provider.calls).toHaveLength(2);

    skewMs = 61_000;
    const refreshed = await call(services, followers, token, { userid: list.userid });
    expect(refreshed.headers["X-Cache"]).toBe("miss");
    // The stored list was cut back to the refreshed first page: the second page is fetched again.
    const second = await call(services, followers, token, { node_id: first.node_id, cursor });
    expect(second.headers["X-Cache"]).toBe("miss");
    expect((body(second).data as Page).followers).toEqual(list.followers.slice(PROVIDER_FOLLOWERS_PAGE));
    expect(provider.calls.at(-1)?.query).toEqual({ node_id: providerNodeId(list.userid), cursor: expect.any(String) });
    expect((await call(services, followers, token, { node_id: first.node_id, cursor })).headers["X-Cache"]).toBe("hit");
    expect(provider.calls).toHaveLength(4);
  });

  it("stops serving an upstream page from the cache once an import replaced the subject", async () => {
    const { services } = build();
    const { token } = await newKey(100);
    const record = event(23);
    await call(services, eventById, token, { event_id: record.event_id });
    await upsertEvents(db, [record], "import");
    expect((await call(services, eventById, token, { event_id: record.event_id })).headers["X-Cache"]).toBe("miss");
    expect(provider.calls).toHaveLength(2);
  });

  it("charges nothing for a cache hit with CACHE_HIT_CREDITS=free", async () => {
    const { services } = build({ CACHE_HIT_CREDITS: "free" });
    const { key, token } = await newKey(100);
    const record = event(15);
    const miss = await call(services, eventById, token, { event_id: record.event_id });
    const hit = await call(services, eventById, token, { event_id: record.event_id });
    expect([miss.headers["X-Credits-Charged"], hit.headers["X-Credits-Charged"]]).toEqual(["4", "0"]);
    expect(hit.headers["X-Cache"]).toBe("hit");
    expect(await creditsOf(key.id)).toBe(96);
  });

  it("store-then-upstream: the store's own records at any age, the provider for the rest", async () => {
    const { services } = build({ DATA_SOURCE: "store-then-upstream", CACHE_TTL_EVENTS_S: 1 });
    const { token } = await newKey(100);
    const imported = event(16);
    await upsertEvents(db, [imported], "import");
    skewMs = 365 * 86_400_000;
    const fromStore = await call(services, eventById, token, { event_id: imported.event_id });
    expect(fromStore.status).toBe(200);
    expect(fromStore.headers["X-Cache"]).toBeUndefined();
    expect(provider.calls).toHaveLength(0);

    const fetched = await call(services, eventById, token, { event_id: event(17).event_id });
    expect(fetched.headers["X-Cache"]).toBe("miss");
    expect(provider.calls).toHaveLength(1);
    await db.query("DELETE FROM events WHERE event_id = $1", [imported.event_id]);
  });

  it("never reserves credits for a key that cannot pay: 402 and no provider call", async () => {
    const { services } = build();
    const { key, token } = await newKey(3);
    const result = await call(services, eventById, token, { event_id: event(18).event_id });
    expect(result.status).toBe(402);
    expect(provider.calls).toHaveLength(0);
    expect(await creditsOf(key.id)).toBe(3);
  });
});

describe("upstream connector: per-user provider keys", () => {
  const user = (email: string) => createUser(db, { email, name: email, role: "analyst", passwordHash: null, creditAllowance: 0 });

  it("sends each user's lookups with that user's own provider key", async () => {
    const { services } = build({ UPSTREAM_KEY_MODE: "per-user", UPSTREAM_API_KEY: undefined });
    const alice = await user(`alice-${crypto.randomUUID()}@example.test`);
    const bob = await user(`bob-${crypto.randomUUID()}@example.test`);
    provider.keys.set("alice-provider-key-1", 100);
    provider.keys.set("bob-provider-key-22", 100);
    await saveProviderKey(db, sealKey, alice.id, "alice-provider-key-1");
    await saveProviderKey(db, sealKey, bob.id, "bob-provider-key-22");
    const aliceKey = await newKey(100, alice.id);
    const bobKey = await newKey(100, bob.id);

    const fromAlice = await call(services, eventById, aliceKey.token, { event_id: event(19).event_id });
    const fromBob = await call(services, eventById, bobKey.token, { event_id: event(20).event_id });
    expect([fromAlice.status, fromBob.status]).toEqual([200, 200]);
    expect(provider.calls.map((seen) => [seen.query.event_id, seen.authorization])).toEqual([
      [event(19).event_id, "Bearer alice-provider-key-1"],
      [event(20).event_id, "Bearer bob-provider-key-22"],
    ]);
    expect(provider.keys.get("alice-provider-key-1")).toBe(96);
    expect(provider.keys.get("bob-provider-key-22")).toBe(96);
    expect(await creditsOf(aliceKey.key.id)).toBe(96);
  });

  it("refuses a user without a provider key: 500 on /v1, nothing charged, no provider call, a clear log line", async () => {
    const { services } = build({ UPSTREAM_KEY_MODE: "per-user", UPSTREAM_API_KEY: undefined });
    const carol = await user(`carol-${crypto.randomUUID()}@example.test`);
    const { key, token } = await newKey(100, carol.id);
    const errors = vi.spyOn(log, "error").mockImplementation(() => undefined);
    const result = await call(services, eventById, token, { event_id: event(21).event_id });
    expect(result.status).toBe(500);
    expect(body(result).message).toBe("Internal server error");
    expect(provider.calls).toHaveLength(0);
    expect(await creditsOf(key.id)).toBe(100);
    expect(errors.mock.calls.map((args) => JSON.stringify(args)).join("\n")).toContain(`no provider key for user ${carol.id}`);
  });

  it("records the provider's refusal of a user's key for their settings page", async () => {
    const { services } = build({ UPSTREAM_KEY_MODE: "per-user", UPSTREAM_API_KEY: undefined });
    const dave = await user(`dave-${crypto.randomUUID()}@example.test`);
    await saveProviderKey(db, sealKey, dave.id, "dave-key-unknown-to-provider");
    const { token } = await newKey(100, dave.id);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const result = await call(services, eventById, token, { event_id: event(22).event_id });
    expect(result.status).toBe(500);
    await vi.waitFor(async () => {
      const rows = await db.query<{ last_error: string | null }>("SELECT last_error FROM provider_keys WHERE user_id = $1", [dave.id]);
      expect(rows[0]?.last_error).toMatch(/401/);
    });
  });
});
