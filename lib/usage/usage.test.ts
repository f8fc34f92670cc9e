import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { testDatabases } from "@/tests/support/databases";
import { dailyCsv, eventsCsv, DAILY_COLUMNS, EVENT_COLUMNS } from "./csv";
import { decodeCursor, encodeCursor, InvalidCursorError, listEvents, type UsageEvent } from "./events";
import { parseCsv as readCsv } from "@/tests/support/csv";
import { describeDaysLeft } from "./forecast";
import { bucketsOf, latencyBucket, percentileMs } from "./latency";
import { addDays, utcDay } from "./period";
import type { UsageScope } from "./scope";
import { statusClassOf, summary, type UsageGroup } from "./summary";
import { newKey, newUser, settleScript, type ScriptedCall, type SettledCall } from "@/tests/support/usage";

/**
 * A scripted sequence of requests goes through the real settle path; the summary, every chart
 * series, the request log and both CSV exports must agree with each other and with the script,
 * to the unit.
 */
const DAY_MS = 86_400_000;

describe.each(await testDatabases())("usage on $name", (database) => {
  let db: Db;

  const now = new Date();
  const today = utcDay(now);
  // Noon of an earlier day: whatever the clock says, the script's days are the days asked for.
  const at = (daysAgo: number, minute: number) => Date.parse(`${addDays(today, -daysAgo)}T12:00:00.000Z`) + minute * 60_000;
  const agoMs = (daysAgo: number, minute: number) => now.getTime() - at(daysAgo, minute);

  let scopeA: UsageScope;
  let scopeB: UsageScope;
  let keyA1: string;
  let keyA2: string;
  let keyB1: string;
  let calls: SettledCall[];
  let pendingRequestId: string;

  /** Parses the CSV, which must end with a complete, CRLF-terminated record. */
  const parseCsv = (text: string): string[][] => {
    expect(text === "" || text.endsWith("\r\n")).toBe(true);
    return readCsv(text);
  };

  const readAll = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

  const allEvents = async (scope: UsageScope, filters = {}, limit = 4): Promise<UsageEvent[]> => {
    const events: UsageEvent[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listEvents(db, scope, filters, { cursor, limit });
      expect(page.events.length).toBeLessThanOrEqual(limit);
      events.push(...page.events);
      if (page.nextCursor === null) return events;
      cursor = page.nextCursor;
    }
  };

  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

  beforeAll(async () => {
    db = await database.open();
    const alice = await newUser(db, "usage-alice@example.com");
    const bob = await newUser(db, "usage-bob@example.com");
    keyA1 = (await newKey(db, alice.id, 20, "alice, \"main\"")).id;
    keyA2 = (await newKey(db, alice.id, 100, "alice-capped")).id;
    keyB1 = (await newKey(db, bob.id, 50, "bob")).id;
    // A1 is a month old (its forecast window is the full 7 days); A2 may spend 3 credits a day.
    await db.query("UPDATE api_keys SET created_at = now() - interval '30 days' WHERE id = $1", [keyA1]);
    await db.query("UPDATE api_keys SET daily_credit_cap = 3 WHERE id = $1", [keyA2]);
    scopeA = { kind: "keys", keyIds: [keyA1, keyA2] };
    scopeB = { kind: "keys", keyIds: [keyB1] };

    const script: (ScriptedCall & { expected: number })[] = [
      // two days ago
      { keyId: keyA1, operation: "followers", costCredits: 2, outcome: "found", agoMs: agoMs(2, 0), latencyMs: 3, expected: 200 },
      { keyId: keyA1, operation: "event_details_id", costCredits: 4, outcome: "found", agoMs: agoMs(2, 1), latencyMs: 40, expected: 200 },
      { keyId: keyA1, operation: "event_details_id", costCredits: 4, outcome: "400", agoMs: agoMs(2, 2), latencyMs: 0, expected: 400 },
      { keyId: keyA1, operation: "event_details_id", costCredits: 4, outcome: "not_found", agoMs: agoMs(2, 3), latencyMs: 20, expected: 404 },
      // yesterday
      { keyId: keyA1, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: agoMs(1, 0), latencyMs: 5, expected: 200 },
      { keyId: keyA1, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: agoMs(1, 1), latencyMs: 6, expected: 200 },
      { keyId: keyA1, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: agoMs(1, 2), latencyMs: 300, expected: 200 },
      { keyId: keyA1, operation: "followers", costCredits: 2, outcome: "429", agoMs: agoMs(1, 3), latencyMs: 0, expected: 429 },
      // today (seconds ago)
      { keyId: keyA1, operation: "event_details", costCredits: 4, outcome: "found", agoMs: 9000, latencyMs: 70, expected: 200 },
      { keyId: keyA1, operation: "followers", costCredits: 2, outcome: "found", agoMs: 8000, latencyMs: 2, expected: 200 },
      { keyId: keyA1, operation: "event_details_id", costCredits: 4, outcome: "found", agoMs: 7000, latencyMs: 900, expected: 200 },
      { keyId: keyA1, operation: "followers", costCredits: 2, outcome: "found", agoMs: 6000, latencyMs: 1, expected: 402 },
      { keyId: keyA1, operation: "event_details", costCredits: 4, outcome: "500", agoMs: 5500, latencyMs: 3000, expected: 500 },
      { keyId: keyA2, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: 5000, latencyMs: 8, expected: 200 },
      { keyId: keyA2, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: 4000, latencyMs: 8, expected: 200 },
      { keyId: keyA2, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: 3000, latencyMs: 8, expected: 200 },
      { keyId: keyA2, operation: "get_user_publications", costCredits: 1, outcome: "found", agoMs: 2000, latencyMs: 8, expected: 402 },
      { keyId: keyB1, operation: "followers", costCredits: 2, outcome: "found", agoMs: 1500, latencyMs: 4, expected: 200 },
      { keyId: keyB1, operation: "followers", costCredits: 2, outcome: "found", agoMs: 1000, latencyMs: 4, expected: 200 },
    ];
    calls = await settleScript(db, script, now.getTime());
    expect(calls.map((call) => call.status)).toEqual(script.map((call) => call.expected));

    // A reservation still running: charged, but not a finished request yet.
    const [pending] = await settleScript(db, [
      { keyId: keyB1, operation: "followers", costCredits: 2, outcome: "reserve", agoMs: 500, latencyMs: 1 },
    ], now.getTime());
    pendingRequestId = pending?.requestId ?? "";
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  const callsOf = (keyIds: string[]) => calls.filter((call) => keyIds.includes(call.keyId));

  describe("summary over the daily rollups", () => {
    it("totals agree with the exact calls: requests, successes, credits, statuses, error rate, credits left", async () => {
      const aliceCalls = callsOf([keyA1, keyA2]);
      const result = await summary(db, scopeA, { from: addDays(today, -6), to: today, groupBy: ["day"], now });
      const statuses: Record<string, number> = {};
      for (const call of aliceCalls) statuses[String(call.status)] = (statuses[String(call.status)] ?? 0) + 1;
      expect(result.totals).toMatchObject({
        requests: 17,
        successful: 11,
        failed: 6,
        credits: sum(aliceCalls.map((call) => call.creditsCharged)),
        statuses,
        statusClasses: { "2xx": 11, "4xx": 5, "5xx": 1 },
        creditsRemaining: 1 + 97,
        activeKeys: 2,
      });
      expect(result.totals.credits).toBe(2 + 4 + 1 + 1 + 1 + 4 + 2 + 4 + 1 + 1 + 1);
      expect(statuses).toEqual({ "200": 11, "400": 1, "402": 2, "404": 1, "429": 1, "500": 1 });
      expect(result.totals.errorRate).toBeCloseTo(6 / 17, 10);
    });

    it("per day: every day of the range, credits stacked by operation and requests by status class", async () => {
      const from = addDays(today, -6);
      const result = await summary(db, scopeA, { from, to: today, groupBy: ["day"], now });
      const days = result.groups.day ?? [];
      expect(days.map((group) => group.id)).toEqual(Array.from({ length: 7 }, (_, index) => addDays(from, index)));
      for (const group of days) {
        const onDay = callsOf([keyA1, keyA2]).filter((call) => utcDay(call.createdAt) === group.id);
        expect(group.requests, group.id).toBe(onDay.length);
        for (const [operation, value] of Object.entries(group.operations)) {
          const ofOperation = onDay.filter((call) => call.operation === operation);
          expect(value, `${group.id} ${operation}`).toEqual({
            requests: ofOperation.length,
            credits: sum(ofOperation.map((call) => call.creditsCharged)),
          });
        }
        for (const statusClass of ["2xx", "4xx", "5xx"] as const) {
          expect(group.statusClasses[statusClass]).toBe(onDay.filter((call) => statusClassOf(call.status) === statusClass).length);
        }
      }
      expect(days.find((group) => group.id === addDays(today, -2))?.operations.event_details_id).toEqual({ requests: 3, credits: 4 });
    });

    it("per key: credits by key, named, biggest first", async () => {
      const result = await summary(db, scopeA, { from: addDays(today, -6), to: today, groupBy: ["key"], now });
      expect((result.groups.key ?? []).map((group) => [group.id, group.label, group.credits, group.requests])).toEqual([
        [keyA1, 'alice, "main"', 19, 13],
        [keyA2, "alice-capped", 3, 4],
      ]);
    });

    it("per operation: p50/p95 are the histogram bucket bounds of the recorded latencies", async () => {
      const result = await summary(db, scopeA, { from: addDays(today, -6), to: today, groupBy: ["operation"], now });
      const events = await allEvents(scopeA);
      const byOperation = new Map((result.groups.operation ?? []).map((group) => [group.id, group]));
      expect([...byOperation.keys()].sort()).toEqual(["event_details", "event_details_id", "followers", "get_user_publications"]);
      for (const [operation, group] of byOperation) {
        const latencies = events.filter((event) => event.operation === operation).map((event) => event.latencyMs);
        expect(group.requests).toBe(latencies.length);
        const buckets = bucketsOf(latencies);
        expect(group.latency, operation).toEqual({
          meanMs: Math.round((sum(latencies) / latencies.length) * 10) / 10,
          p50Ms: percentileMs(buckets, 0.5),
          p95Ms: percentileMs(buckets, 0.95),
        });
      }
      // The slow 3 s failure lands in [2048, 4096): p95 of event_details says "≤ 4096 ms".
      expect(byOperation.get("event_details")?.latency.p95Ms).toBe(4096);
    });

    it("leaves out other users' keys and pending reservations; a range without usage is zeros", async () => {
      const bob = await summary(db, scopeB, { from: today, to: today, groupBy: ["day", "operation", "key"], now });
      expect(bob.totals).toMatchObject({ requests: 2, successful: 2, credits: 4, creditsRemaining: 50 - 4 - 2 });
      expect(bob.groups.key?.map((group) => group.id)).toEqual([keyB1]);
      const empty = await summary(db, scopeA, { from: addDays(today, -30), to: addDays(today, -20), groupBy: ["day"], now });
      expect(empty.totals).toMatchObject({ requests: 0, credits: 0, errorRate: 0, latency: { meanMs: null, p50Ms: null, p95Ms: null } });
      expect(empty.groups.day).toHaveLength(11);
      const nobody = await summary(db, { kind: "keys", keyIds: [] }, { from: today, to: today, groupBy: ["key"], now });
      expect(nobody.totals).toMatchObject({ requests: 0, creditsRemaining: 0, activeKeys: 0 });
    });

    it("everyone's scope sums every key", async () => {
      const all = await summary(db, { kind: "all" }, { from: addDays(today, -6), to: today, groupBy: ["key"], now });
      expect(all.totals.requests).toBe(calls.length);
      expect(all.totals.credits).toBe(sum(calls.map((call) => call.creditsCharged)));
    });
  });

  describe("burn-rate forecast", () => {
    it("divides the last 7 days' credits by the window and the balance by that rate", async () => {
      const { forecast } = await summary(db, scopeA, { from: today, to: today, groupBy: ["day"], now });
      const a1 = forecast.keys.find((key) => key.keyId === keyA1);
      const windowStart = Date.parse(`${addDays(today, -6)}T00:00:00.000Z`);
      const windowDays = (now.getTime() - windowStart) / DAY_MS;
      expect(a1).toMatchObject({ creditsRemaining: 1, creditsSpent: 19 });
      expect(a1?.windowDays).toBeCloseTo(windowDays, 6);
      expect(a1?.creditsPerDay).toBeCloseTo(19 / windowDays, 6);
      expect(a1?.daysLeft).toBeCloseTo(1 / (19 / windowDays), 6);
      // A2 is brand new: its window is one day (not minutes).
      const a2 = forecast.keys.find((key) => key.keyId === keyA2);
      expect(a2).toMatchObject({ creditsSpent: 3, windowDays: 1, creditsPerDay: 3, daysLeft: 97 / 3 });
      expect(forecast.keys.map((key) => key.keyId)).toEqual([keyA1, keyA2]);
      expect(forecast.totalKeys).toBe(2);
    });

    it("has no forecast without spend, and says so", async () => {
      const idle = await newKey(db, null, 10, "idle");
      const { forecast } = await summary(db, { kind: "keys", keyIds: [idle.id] }, { from: today, to: today, groupBy: ["day"], now });
      expect(forecast.keys[0]).toMatchObject({ daysLeft: null, runsOutAt: null, creditsPerDay: 0 });
      expect(describeDaysLeft(null)).toBe("no recent spend");
      expect(describeDaysLeft(12.4)).toBe("~12 days left");
      expect(describeDaysLeft(0.4)).toBe("< 1 day left");
      expect(describeDaysLeft(0)).toBe("empty");
    });
  });

  describe("request log", () => {
    it("pages newest first with a keyset cursor and returns every finished call exactly once", async () => {
      const events = await allEvents(scopeA, {}, 4);
      const expected = [...callsOf([keyA1, keyA2])].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      expect(events.map((event) => event.requestId)).toEqual(expected.map((call) => call.requestId));
      for (const [index, event] of events.entries()) {
        const call = expected[index];
        expect(event).toMatchObject({
          keyId: call?.keyId,
          operation: call?.operation,
          status: call?.status,
          creditsCharged: call?.creditsCharged,
          createdAt: call?.createdAt.toISOString(),
        });
        expect(event.latencyMs).toBeGreaterThanOrEqual(call?.latencyMs ?? 0);
      }
      expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    });

    it("says why a 402 was refused: out of credits, or over the daily cap", async () => {
      const refused = await allEvents(scopeA, { status: 402 });
      expect(refused.map((event) => [event.keyId, event.reason])).toEqual([
        [keyA2, "daily_cap"],
        [keyA1, "credits"],
      ]);
    });

    it("filters by operation, status class, key, time range and exact request id", async () => {
      const aliceCalls = callsOf([keyA1, keyA2]);
      expect((await allEvents(scopeA, { operation: "followers" })).length).toBe(aliceCalls.filter((call) => call.operation === "followers").length);
      expect((await allEvents(scopeA, { status: "4xx" })).map((event) => event.status).sort()).toEqual([400, 402, 402, 404, 429]);
      expect((await allEvents(scopeA, { status: "5xx" })).map((event) => event.status)).toEqual([500]);
      expect((await allEvents({ kind: "keys", keyIds: [keyA2] })).length).toBe(4);
      const todayStart = new Date(`${today}T00:00:00.000Z`);
      const todays = await allEvents(scopeA, { from: todayStart, to: new Date(now.getTime() + 1000) });
      expect(todays.length).toBe(aliceCalls.filter((call) => call.createdAt >= todayStart).length);
      const yesterday = await allEvents(scopeA, { from: new Date(todayStart.getTime() - DAY_MS), to: todayStart });
      expect(yesterday.map((event) => event.operation).sort()).toEqual([
        "followers", "get_user_publications", "get_user_publications", "get_user_publications",
      ]);
      const target = aliceCalls[5];
      const found = await listEvents(db, scopeA, { requestId: target?.requestId }, { limit: 10 });
      expect(found.events.map((event) => event.requestId)).toEqual([target?.requestId]);
    });

    it("never shows another scope's calls, nor a pending reservation", async () => {
      const bobsRequest = callsOf([keyB1])[0]?.requestId;
      expect((await listEvents(db, scopeA, { requestId: bobsRequest }, { limit: 10 })).events).toEqual([]);
      const bob = await allEvents(scopeB);
      expect(bob).toHaveLength(2);
      expect(bob.map((event) => event.requestId)).not.toContain(pendingRequestId);
      const everyone = await allEvents({ kind: "all" }, {}, 7);
      expect(everyone).toHaveLength(calls.length);
    });

    it("rejects a tampered cursor and round-trips a real one", async () => {
      const page = await listEvents(db, scopeA, {}, { limit: 2 });
      const cursor = page.nextCursor ?? "";
      expect(decodeCursor(cursor)).toEqual({ at: expect.stringMatching(/\.\d{6}Z$/), id: expect.any(String) });
      expect(encodeCursor(decodeCursor(cursor))).toBe(cursor);
      for (const bad of ["nope!", Buffer.from("2025-01-01|1").toString("base64url"), Buffer.from("x|y|z").toString("base64url")]) {
        await expect(listEvents(db, scopeA, {}, { cursor: bad, limit: 2 })).rejects.toBeInstanceOf(InvalidCursorError);
      }
    });
  });

  describe("CSV exports", () => {
    it("the events CSV holds exactly the log, RFC 4180-escaped, with ISO-8601 UTC times", async () => {
      const text = await readAll(eventsCsv(db, scopeA, {}));
      expect(text.endsWith("\r\n")).toBe(true);
      const [header, ...rows] = parseCsv(text);
      expect(header).toEqual([...EVENT_COLUMNS]);
      const events = await allEvents(scopeA);
      expect(rows).toEqual(
        events.map((event) => [
          event.requestId,
          event.createdAt,
          event.keyId,
          event.keyName,
          event.operation,
          String(event.status),
          String(event.creditsCharged),
          String(event.latencyMs),
          event.paramsSummary,
          event.reason,
          String(event.requests),
        ]),
      );
      expect(text).toContain('"alice, ""main"""');
      for (const row of rows) expect(row[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it("streams more rows than one page holds", async () => {
      const big = await newKey(db, null, 0, "bulk");
      await db.query(
        `INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at)
         SELECT gen_random_uuid(), $1, 'followers', 400, 0, 1, 'userid=' || i, now() - make_interval(secs => i)
         FROM generate_series(1, 2500) i`,
        [big.id],
      );
      const [, ...rows] = parseCsv(await readAll(eventsCsv(db, { kind: "keys", keyIds: [big.id] }, {})));
      expect(rows).toHaveLength(2500);
      expect(new Set(rows.map((row) => row[0])).size).toBe(2500);
      expect(rows[0]?.[8]).toBe("userid=1");
      expect(rows.at(-1)?.[8]).toBe("userid=2500");
    });

    it("the daily CSV sums to the summary and defuses formula-like names", async () => {
      const from = addDays(today, -6);
      const [header, ...rows] = parseCsv(await readAll(dailyCsv(db, scopeA, { from, to: today })));
      expect(header).toEqual([...DAILY_COLUMNS]);
      const result = await summary(db, scopeA, { from, to: today, groupBy: ["day"], now });
      expect(sum(rows.map((row) => Number(row[5])))).toBe(result.totals.requests);
      expect(sum(rows.map((row) => Number(row[6])))).toBe(result.totals.credits);
      const days = new Map<string, UsageGroup>((result.groups.day ?? []).map((group) => [group.id, group]));
      for (const row of rows) expect(days.has(row[0] ?? "")).toBe(true);
      const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const sorted = [...rows].sort((a, b) => byteOrder(a[0] ?? "", b[0] ?? "") || byteOrder(a[1] ?? "", b[1] ?? ""));
      expect(rows.map((row) => row.slice(0, 2))).toEqual(sorted.map((row) => row.slice(0, 2)));

      const evil = await newKey(db, null, 10, "=HYPERLINK(\"http://evil\")");
      await settleScript(db, [{ keyId: evil.id, operation: "followers", costCredits: 2, outcome: "found", agoMs: 100, latencyMs: 1 }]);
      const [, evilRow] = parseCsv(await readAll(dailyCsv(db, { kind: "keys", keyIds: [evil.id] }, { from: today, to: today })));
      expect(evilRow?.[2]).toBe("'=HYPERLINK(\"http://evil\")");
    });
  });

  describe("latency buckets", () => {
    it("match the database's usage_bucket() at every boundary", async () => {
      const samples = [0, 1, 2, 3, 4, 7, 8, 1023, 1024, 16_383, 16_384, 100_000];
      const rows = await db.query<{ ms: number; bucket: number }>(
        "SELECT ms, usage_bucket(ms) AS bucket FROM unnest($1::int[]) AS ms",
        [samples],
      );
      expect(rows.map((row) => row.bucket)).toEqual(samples.map(latencyBucket));
    });

    it("report the upper bound of the bucket holding the percentile", () => {
      expect(percentileMs(bucketsOf([]), 0.5)).toBeNull();
      expect(percentileMs(bucketsOf([0]), 0.5)).toBe(1);
      expect(percentileMs(bucketsOf([5, 5, 5, 300]), 0.5)).toBe(8);
      expect(percentileMs(bucketsOf([5, 5, 5, 300]), 0.95)).toBe(512);
      expect(percentileMs(bucketsOf([50_000]), 0.95)).toBe(16_384);
    });
  });
});
