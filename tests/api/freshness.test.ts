import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents } from "@/lib/demo/events";
import { startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { consoleClient } from "./console-client";
import { embeddedInRun, createKeyWithCli, delay, killServerNow, readKeyLedger, startServer, stopServer, type ApiTarget, type IssuedKey } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * Freshness and restarted batches on a server of its own whose data source is a stand-in upstream provider:
 * - freshness per request: Cache-Control max-age=N takes a cached answer up to N s old, no-cache
 *   asks the provider again (charged as a miss), no header keeps the operator's TTL; answers from
 *   the cache carry Age beside X-Data-As-Of;
 * - restart: a batch with 16 slow lookups in flight (BATCH_CONCURRENCY=16) whose server is
 *   SIGKILLed finishes after a restart with no input charged twice and none lost.
 */
const PROVIDER_KEY = "freshness-provider-key";
const EVENT_ID = "4200000000000001";
const BATCH_IDS = Array.from({ length: 48 }, (_, index) => String(4_300_000_000_000_001 + index));

let target: ApiTarget;
let key: IssuedKey;
let provider: FakeProvider;

beforeAll(async () => {
  provider = await startFakeProvider();
  provider.keys.set(PROVIDER_KEY, 1_000_000);
  const [template] = generateEvents("http://127.0.0.1");
  if (!template) throw new Error("no demo event");
  for (const eventId of [EVENT_ID, ...BATCH_IDS]) provider.events.set(eventId, { ...template, event_id: eventId, related_events: [] });
  target = await startOwnServer({
    label: "freshness",
    env: {
      DATA_SOURCE: "upstream",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_API_KEY: PROVIDER_KEY,
      CACHE_TTL_EVENTS_S: "3600",
      // A lookup cut short by the kill is settled once it cannot still be running: kept short here.
      UPSTREAM_TIMEOUT_MS: "3000",
      UPSTREAM_RETRIES: "0",
      DB_TIMEOUT_MS: "2000",
      BATCH_CONCURRENCY: "16",
      BATCH_LEASE_MS: "3000",
    },
    beforeStart: async (server) => {
      key = await createKeyWithCli(server, "freshness", { credits: 1000, qps: 100 });
    },
  });
}, 420_000);

afterAll(async () => {
  await stopOwnServer(target);
  await provider?.close();
});

const lookup = async (cacheControl?: string) => {
  const response = await fetch(`${target.baseUrl}/v1/eventsite/event_details_id?event_id=${EVENT_ID}`, {
    headers: { Authorization: `Bearer ${key.token}`, ...(cacheControl === undefined ? {} : { "Cache-Control": cacheControl }) },
  });
  const body = (await response.json()) as { code: number; data: { event: { event_id: string } } | null };
  return {
    status: response.status,
    body,
    cache: response.headers.get("x-cache"),
    age: response.headers.get("age"),
    asOf: response.headers.get("x-data-as-of"),
    charged: Number(response.headers.get("x-credits-charged")),
  };
};

const providerCalls = () => provider.callsTo("/v1/eventsite/event_details_id").length;

describe.runIf(embeddedInRun)("Cache-Control on a lookup (upstream data source)", () => {
  it("follows the operator's TTL without the header, and marks cached answers with Age and X-Data-As-Of", async () => {
    const first = await lookup();
    expect(first).toMatchObject({ status: 200, cache: "miss", age: null, charged: 4 });
    expect(first.body.data?.event.event_id).toBe(EVENT_ID);
    expect(providerCalls()).toBe(1);
    await delay(1100);
    const cached = await lookup();
    expect(cached).toMatchObject({ status: 200, cache: "hit" });
    expect(Number(cached.age)).toBeGreaterThanOrEqual(1);
    expect(cached.asOf).toBe(first.asOf);
    expect(providerCalls()).toBe(1);
  });

  it("asks the provider again for no-cache, charged as a miss", async () => {
    const before = providerCalls();
    const fresh = await lookup("no-cache");
    expect(fresh).toMatchObject({ status: 200, cache: "miss", age: null, charged: 4 });
    expect(providerCalls()).toBe(before + 1);
  });

  it("takes a cached answer only up to max-age seconds old", async () => {
    const before = providerCalls();
    const young = await lookup("max-age=3600");
    expect(young).toMatchObject({ status: 200, cache: "hit" });
    expect(providerCalls()).toBe(before);
    await delay(2100);
    const tooOld = await lookup("max-age=1");
    expect(tooOld).toMatchObject({ status: 200, cache: "miss", age: null });
    expect(providerCalls()).toBe(before + 1);
    // A malformed value is ignored: the operator's TTL (an hour) applies.
    const ignored = await lookup("max-age=soon");
    expect(ignored.cache).toBe("hit");
    expect(providerCalls()).toBe(before + 1);
  });
});

describe.runIf(embeddedInRun)("a batch with 16 lookups in flight when its server is killed", () => {
  it("finishes after the restart with every input charged exactly once", async () => {
    const client = consoleClient(target);
    const admin = await client.admin();
    const analyst = await client.analyst(admin, "restart16", 1000);
    const batchKey = await client.consoleKey(analyst, 1000, 100);
    provider.always({ delayMs: 700 });
    try {
      const created = await fetch(`${target.baseUrl}/v1/batches`, {
        method: "POST",
        headers: { Authorization: `Bearer ${batchKey.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ operation: "event_details_id", inputs: BATCH_IDS }),
      });
      expect(created.status).toBe(202);
      const id = ((await created.json()) as { data: { id: string } }).data.id;
      const progress = async () => (await client.api(analyst, "GET", `/api/batches/${id}`)).body as { status: string; done: number; creditsSpent: number; succeeded: number };
      const deadline = Date.now() + 60_000;
      while ((await progress()).done < 8) {
        if (Date.now() > deadline) throw new Error("the batch did not start");
        await delay(100);
      }
      const callsAtKill = providerCalls();
      killServerNow(target);
      await stopServer(target);
      console.log(`[restart16] killed with ${callsAtKill} provider calls made`);
      await startServer(target, "next-start");
      const session = await client.signIn(analyst.email, "", analyst.id).catch(() => analyst);
      const finishBy = Date.now() + 120_000;
      let final = await (async () => (await client.api(session, "GET", `/api/batches/${id}`)).body as { status: string; done: number; creditsSpent: number; succeeded: number })();
      while (final.status !== "done") {
        if (Date.now() > finishBy) throw new Error(`not finished after the restart: ${JSON.stringify(final)}`);
        await delay(300);
        final = (await client.api(analyst, "GET", `/api/batches/${id}`)).body as typeof final;
      }
      expect(final).toMatchObject({ done: 48, succeeded: 48, creditsSpent: 48 * 4 });
      const ledger = await readKeyLedger(target, batchKey.id);
      const charged = ledger.usage.filter((row) => row.status === 200);
      expect(charged).toHaveLength(48);
      expect(charged.reduce((sum, row) => sum + row.credits_charged, 0)).toBe(48 * 4);
      // The lookups cut short by the kill had reserved their cost: those reservations (pending,
      // status 102) are refunded by the sweep of abandoned reservations, never charged.
      const pending = ledger.usage.filter((row) => row.status === 102);
      expect(pending.length).toBeLessThanOrEqual(16);
      expect(ledger.usage.filter((row) => row.status !== 200 && row.status !== 102)).toEqual([]);
      expect(ledger.creditsRemaining + pending.reduce((sum, row) => sum + row.credits_charged, 0)).toBe(1000 - 48 * 4);
    } finally {
      provider.always(null);
    }
  }, 300_000);
});
