import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runLookup, type PipelineResult } from "@/lib/api/pipeline";
import { createSettler } from "@/lib/credits/settle";
import type { Db } from "@/lib/db/client";
import { generateDemoData } from "@/lib/demo/generate";
import { createAuthenticator } from "@/lib/keys/authenticate";
import { createKey } from "@/lib/keys/repository";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { exposition, metrics } from "@/lib/metrics/registry";
import type { Operation } from "@/lib/operations";
import { eventDetailsId as eventById } from "@/lib/operations/event-details-id";
import { followers } from "@/lib/operations/followers";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import { createRateLimiter } from "@/lib/ratelimit/limiter";
import type { EventRecord } from "@/lib/records/records";
import type { Services } from "@/lib/services";
import { createAccountReader } from "@/lib/usage/account-reader";
import { pgliteDatabase } from "@/tests/support/databases";
import { startFakeProvider, type FakeProvider } from "@/tests/support/fake-provider";
import { valueOf } from "@/tests/support/metric-deltas";
import { createCursorCodec } from "./cursor";
import { selectConnector, type DataConnector, type UpstreamSettings } from "./select";
import { createStoreConnector } from "./store";
import { createSuppressionList } from "./suppression";
import { upstreamOperationOf } from "./upstream-metrics";

/**
 * The upstream engine's metrics through the real pipeline, a real PGlite database and a real HTTP
 * provider (tests/support/fake-provider.ts): each assertion is on how much a counter moved.
 */
const SECRET = "upstream-metrics-secret-upstream-metrics-0123456";
const SHARED_KEY = "shared-provider-key-metrics";
const demo = generateDemoData("http://localhost:3000");
const database = pgliteDatabase();
const cursors = createCursorCodec(crypto.randomBytes(32));

let db: Db;
let provider: FakeProvider;
let skewMs = 0;
const clock = () => Date.now() + skewMs;

const build = (overrides: Partial<UpstreamSettings> = {}): { services: Services; connector: DataConnector } => {
  const connector = selectConnector({
    settings: {
      DATA_SOURCE: "upstream",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_API_KEY: SHARED_KEY,
      UPSTREAM_KEY_MODE: "shared",
      UPSTREAM_TIMEOUT_MS: 1000,
      UPSTREAM_MAX_CONCURRENCY: 16,
      UPSTREAM_RETRIES: 1,
      UPSTREAM_MAX_RETRY_WAIT_MS: 50,
      UPSTREAM_BREAKER_THRESHOLD: 50,
      UPSTREAM_BREAKER_COOLDOWN_MS: 30_000,
      CACHE_TTL_EVENTS_S: 3600,
      CACHE_TTL_FOLLOWERS_S: 3600,
      CACHE_TTL_PUBLICATIONS_S: 3600,
      CACHE_HIT_CREDITS: "full",
      ...overrides,
    },
    db: async () => db,
    cursors,
    store: createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 0 }),
    sealKey: crypto.randomBytes(32),
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

const tokenWith = async (credits: number) =>
  (await createKey(db, SECRET, { name: "metrics test", ownerId: null, credits, qpsLimit: 10_000, expiresAt: null })).token;

const call = (services: Services, spec: Operation, token: string, query: Record<string, string>): Promise<PipelineResult> =>
  runLookup(spec, { authorization: `Bearer ${token}`, query: new URLSearchParams(query), clientAddress: "127.0.0.1" }, services);

const event = (index: number): EventRecord => {
  const record = demo.events[index];
  if (!record) throw new Error(`no demo event ${index}`);
  return record;
};

/** What every upstream metric reads now, for the labels a test looks at. */
const readings = async () => {
  const m = metrics();
  return {
    ok: await valueOf(m.upstreamRequests, { operation: "event_details_id", outcome: "ok" }),
    notFound: await valueOf(m.upstreamRequests, { operation: "event_details_id", outcome: "not_found" }),
    error: await valueOf(m.upstreamRequests, { operation: "event_details_id", outcome: "error" }),
    timed: await valueOf(m.upstreamDuration, { operation: "event_details_id" }),
    hit: await valueOf(m.cacheLookups, { result: "hit" }),
    miss: await valueOf(m.cacheLookups, { result: "miss" }),
    stale: await valueOf(m.cacheLookups, { result: "stale" }),
    joins: await valueOf(m.singleFlightJoins),
    timeout: await valueOf(m.upstreamErrors, { kind: "timeout" }),
    network: await valueOf(m.upstreamErrors, { kind: "network" }),
    status5xx: await valueOf(m.upstreamErrors, { kind: "status_5xx" }),
    status4xx: await valueOf(m.upstreamErrors, { kind: "status_4xx" }),
    rateLimited: await valueOf(m.upstreamErrors, { kind: "rate_limited" }),
    breakerOpen: await valueOf(m.upstreamErrors, { kind: "breaker_open" }),
    invalid: await valueOf(m.upstreamErrors, { kind: "invalid_answer" }),
  };
};
type Readings = Awaited<ReturnType<typeof readings>>;

/** How much each reading moved while `work` ran; only the ones that moved. */
const moved = async (work: () => Promise<unknown>): Promise<Partial<Readings>> => {
  const before = await readings();
  await work();
  const after = await readings();
  const changed: Partial<Readings> = {};
  for (const name of Object.keys(after) as (keyof Readings)[]) {
    const delta = after[name] - before[name];
    if (delta !== 0) changed[name] = delta;
  }
  return changed;
};

const quiet = () => {
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  vi.spyOn(console, "error").mockImplementation(() => undefined);
};

beforeAll(async () => {
  db = await database.open();
  provider = await startFakeProvider();
  provider.keys.set(SHARED_KEY, 1_000_000);
  for (const record of demo.events) provider.events.set(record.event_id, record);
  for (const list of demo.followerLists) provider.followers.set(list.userid, list.followers);
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
  await db.query("DELETE FROM upstream_pages");
  await db.query("DELETE FROM events WHERE source = 'upstream'");
  await db.query("DELETE FROM pin_users WHERE source = 'upstream'");
});

describe("upstream metrics: calls, latency and the cache", () => {
  it("names the provider operation by its path's last segment", () => {
    expect(upstreamOperationOf("v1/eventsite/event_details_id")).toBe("event_details_id");
    expect(upstreamOperationOf("/v1/pinsite/followers/")).toBe("followers");
  });

  it("counts a miss and its call (ok, timed), then a hit with no call", async () => {
    const { services } = build();
    const token = await tokenWith(100);
    const query = { event_id: event(0).event_id };
    expect(await moved(() => call(services, eventById, token, query))).toEqual({ ok: 1, timed: 1, miss: 1 });
    expect(await moved(() => call(services, eventById, token, query))).toEqual({ hit: 1 });
  });

  it("counts a page older than its TTL as stale, and its call", async () => {
    const { services } = build();
    const token = await tokenWith(100);
    const query = { event_id: event(1).event_id };
    await call(services, eventById, token, query);
    skewMs = 3_601_000;
    expect(await moved(() => call(services, eventById, token, query))).toEqual({ ok: 1, timed: 1, stale: 1 });
  });

  it("counts a subject the provider does not have as not_found", async () => {
    const { services } = build();
    const token = await tokenWith(100);
    expect(await moved(() => call(services, eventById, token, { event_id: "9999999999999999" }))).toEqual({ notFound: 1, timed: 1, miss: 1 });
  });

  it("counts the calls that joined one in flight as single-flight joins: one call for five lookups", async () => {
    const { services } = build();
    const token = await tokenWith(100);
    provider.always({ delayMs: 150 });
    const query = { event_id: event(2).event_id };
    const delta = await moved(() => Promise.all(Array.from({ length: 5 }, () => call(services, eventById, token, query))));
    expect(delta).toEqual({ ok: 1, timed: 1, miss: 5, joins: 4 });
    expect(provider.calls).toHaveLength(1);
  });

  it("labels a paged list's calls with its operation", async () => {
    const { services } = build();
    const token = await tokenWith(100);
    const list = demo.followerLists[0];
    if (!list) throw new Error("no demo follower list");
    const ok = () => valueOf(metrics().upstreamRequests, { operation: "followers", outcome: "ok" });
    const before = await ok();
    await call(services, followers, token, { userid: list.userid });
    expect((await ok()) - before).toBe(1);
  });
});

describe("upstream metrics: failures by kind", () => {
  it("a 5xx after the retries: one call, outcome error, kind status_5xx", async () => {
    quiet();
    const { services } = build();
    const token = await tokenWith(100);
    provider.always({ status: 503 });
    expect(await moved(() => call(services, eventById, token, { event_id: event(3).event_id }))).toEqual({ error: 1, timed: 1, miss: 1, status5xx: 1 });
  });

  it("a provider that never answers: kind timeout", async () => {
    quiet();
    const { services } = build({ UPSTREAM_TIMEOUT_MS: 100, UPSTREAM_RETRIES: 1 });
    const token = await tokenWith(100);
    provider.always({ hang: true });
    expect(await moved(() => call(services, eventById, token, { event_id: event(4).event_id }))).toEqual({ error: 1, timed: 1, miss: 1, timeout: 1 });
  });

  it("a provider that cannot be reached: kind network", async () => {
    quiet();
    const closed = await startFakeProvider();
    const url = closed.url;
    await closed.close();
    const { services } = build({ UPSTREAM_BASE_URL: url });
    const token = await tokenWith(100);
    expect(await moved(() => call(services, eventById, token, { event_id: event(5).event_id }))).toEqual({ error: 1, timed: 1, miss: 1, network: 1 });
  });

  it("a 429 whose Retry-After is past our wait budget: kind rate_limited", async () => {
    quiet();
    const { services } = build();
    const token = await tokenWith(100);
    provider.always({ status: 429, headers: { "Retry-After": "30" } });
    expect(await moved(() => call(services, eventById, token, { event_id: event(6).event_id }))).toEqual({ error: 1, timed: 1, miss: 1, rateLimited: 1 });
  });

  it("the provider refusing our key (401): kind status_4xx", async () => {
    quiet();
    const { services } = build({ UPSTREAM_API_KEY: "not-a-provider-key" });
    const token = await tokenWith(100);
    expect(await moved(() => call(services, eventById, token, { event_id: event(7).event_id }))).toEqual({ error: 1, timed: 1, miss: 1, status4xx: 1 });
  });

  it("an answer that is not the contract's: kind invalid_answer", async () => {
    quiet();
    const { services } = build();
    const token = await tokenWith(100);
    provider.always({ status: 200, body: { code: 0, message: "success", data: { event: { nothing: "useful" } } } });
    expect(await moved(() => call(services, eventById, token, { event_id: event(8).event_id }))).toEqual({ error: 1, timed: 1, miss: 1, invalid: 1 });
  });

  it("shows the breaker's state (0 closed, 2 open, 1 half-open) and counts lookups refused while open", async () => {
    quiet();
    const { services } = build({ UPSTREAM_RETRIES: 0, UPSTREAM_BREAKER_THRESHOLD: 2, UPSTREAM_BREAKER_COOLDOWN_MS: 600 });
    const token = await tokenWith(100);
    const state = async () => {
      await exposition();
      return valueOf(metrics().upstreamCircuitState);
    };
    expect(await state()).toBe(0);
    provider.always({ status: 503 });
    for (let attempt = 0; attempt < 2; attempt += 1) await call(services, eventById, token, { event_id: event(9).event_id });
    expect(await state()).toBe(2);
    expect(await moved(() => call(services, eventById, token, { event_id: event(9).event_id }))).toEqual({ miss: 1, breakerOpen: 1 });
    // The cool-down ends with no event: the scrape reads the state again.
    await new Promise((resolve) => setTimeout(resolve, 650));
    expect(await state()).toBe(1);
    provider.always(null);
    await call(services, eventById, token, { event_id: event(9).event_id });
    expect(await state()).toBe(0);
  });
});
