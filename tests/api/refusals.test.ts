import zlib from "node:zlib";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { consoleClient, type Session } from "./console-client";
import { delay, type ApiTarget } from "./harness";
import { paths } from "./http";
import { halfClosedExchange, requestHead, sendThenReset } from "./raw-http";
import { parseCsv } from "../support/csv";

/**
 * Isolation (docs/decisions.md "Isolation"), on the production servers: a flood of free refusals
 * leaves a bounded request log with exact totals; a request whose client is gone before its answer
 * is written is not charged (usage 499); a half-closed request still gets its whole answer.
 */
const targets = inject("apiTargets");

const FOLLOWERS = `${paths.followers}?userid=2000000002`;
const FLOOD_REQUESTS = 2000;
const FLOOD_CONNECTIONS = 32;

type LogEvent = { requestId: string; status: number; requests: number; createdAt: string; creditsCharged: number; reason: string };

describe.each(targets.map((target) => [target.kind, target] as const))("isolation on %s", (_kind, target: ApiTarget) => {
  const client = consoleClient(target);
  let analyst: Session;

  /** A key of the analyst, made through the console; its token goes to /v1. */
  const newKey = async (credits: number, qpsLimit: number): Promise<{ id: string; token: string }> => {
    const answer = await client.api(analyst, "POST", "/api/keys", { name: `isolation ${Date.now()}`, credits, qpsLimit });
    expect(answer.status, answer.text).toBe(201);
    const body = answer.body as { key: { id: string }; token: string };
    return { id: body.key.id, token: body.token };
  };

  /** The key's whole request log, every page. */
  const requestLog = async (keyId: string, query = ""): Promise<LogEvent[]> => {
    const events: LogEvent[] = [];
    let cursor: string | null = null;
    do {
      const answer = await client.api(
        analyst,
        "GET",
        `/api/usage/events?keyId=${keyId}&limit=200${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      expect(answer.status, answer.text).toBe(200);
      const page = answer.body as { events: LogEvent[]; nextCursor: string | null };
      events.push(...page.events);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return events;
  };

  const creditsOf = (keyId: string) => client.creditsOf(analyst, keyId);

  beforeAll(async () => {
    analyst = await client.analyst(await client.admin(), "isolation", 10_000);
  });

  it("keeps a 2,000-request flood of a 0-credit 1/s key as at most 10 records per status and second plus one aggregate, counting every request", async () => {
    const key = await newKey(0, 1);
    const startedAt = Date.now();
    let sent = 0;
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: FLOOD_CONNECTIONS }, async () => {
        while (sent < FLOOD_REQUESTS) {
          sent += 1;
          const response = await fetch(`${target.baseUrl}${FOLLOWERS}`, { headers: { Authorization: `Bearer ${key.token}` } });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    const seconds = Math.ceil((Date.now() - startedAt) / 1000) + 1;
    expect([...statuses.keys()].sort()).toEqual([402, 429]);
    expect((statuses.get(402) ?? 0) + (statuses.get(429) ?? 0)).toBe(FLOOD_REQUESTS);

    // Totals are exact: the summary counts each request once.
    const summary = await client.api(analyst, "GET", `/api/usage/summary?keyId=${key.id}`);
    expect(summary.status, summary.text).toBe(200);
    const totals = (summary.body as { totals: { requests: number; credits: number; statuses: Record<string, number> } }).totals;
    expect(totals).toMatchObject({ requests: FLOOD_REQUESTS, credits: 0 });
    expect(totals.statuses).toEqual({ "402": statuses.get(402), "429": statuses.get(429) });

    // The log is bounded: per status and second, at most 10 single records and one aggregate
    // (which may stand for a single request, when only the 11th came).
    const log = await requestLog(key.id);
    expect(log.reduce((sum, event) => sum + event.requests, 0)).toBe(FLOOD_REQUESTS);
    const perSecond = new Map<string, { records: number; counted: number }>();
    for (const event of log) {
      const slot = `${event.status} ${event.createdAt.slice(0, 19)}`;
      const counts = perSecond.get(slot) ?? { records: 0, counted: 0 };
      perSecond.set(slot, { records: counts.records + 1, counted: counts.counted + (event.requests > 1 ? 1 : 0) });
    }
    for (const [slot, counts] of perSecond) {
      expect(counts.records, slot).toBeLessThanOrEqual(11);
      expect(counts.counted, slot).toBeLessThanOrEqual(1);
    }
    expect(log.length).toBeLessThanOrEqual(seconds * 2 * 11);
    expect(log.some((event) => event.status === 429 && event.requests > 1)).toBe(true);
    console.log(`[isolation ${target.kind}] flood of ${FLOOD_REQUESTS} in ${seconds - 1}+ s: ${log.length} request-log entries`);

    // Both exports count every request too.
    const events = await client.api(analyst, "GET", `/api/usage/export?kind=events&keyId=${key.id}`);
    expect(events.status, events.text).toBe(200);
    const [eventsHeader = [], ...eventRows] = parseCsv(events.text);
    const requestsColumn = eventsHeader.indexOf("requests");
    expect(eventRows.reduce((sum, row) => sum + Number(row[requestsColumn]), 0)).toBe(FLOOD_REQUESTS);
    const daily = await client.api(analyst, "GET", `/api/usage/export?kind=daily&keyId=${key.id}`);
    const [dailyHeader = [], ...dailyRows] = parseCsv(daily.text);
    const dailyRequests = dailyHeader.indexOf("requests");
    expect(dailyRows.reduce((sum, row) => sum + Number(row[dailyRequests]), 0)).toBe(FLOOD_REQUESTS);
  });

  it("charges nothing for 20 lookups whose client reset the connection right after sending: 20 usage records of 499", async () => {
    const key = await newKey(1000, 1000);
    const head = requestHead(`GET ${FOLLOWERS} HTTP/1.1`, { Host: "localhost", Authorization: `Bearer ${key.token}` });
    await Promise.all(Array.from({ length: 20 }, () => sendThenReset(target.baseUrl, head)));

    const deadline = Date.now() + 15_000;
    let log = await requestLog(key.id);
    while ((log.length < 20 || log.some((event) => event.status !== 499)) && Date.now() < deadline) {
      await delay(200);
      log = await requestLog(key.id);
    }
    expect(log).toHaveLength(20);
    for (const event of log) expect(event).toMatchObject({ status: 499, creditsCharged: 0, reason: "client_closed", requests: 1 });
    expect(await creditsOf(key.id)).toBe(1000);
    const summary = await client.api(analyst, "GET", `/api/usage/summary?keyId=${key.id}`);
    expect((summary.body as { totals: { requests: number; credits: number; statuses: Record<string, number> } }).totals).toMatchObject({
      requests: 20,
      credits: 0,
      statuses: { "499": 20 },
    });
  });

  it.each([
    ["gzip", { "Accept-Encoding": "gzip" }],
    ["identity", {}],
  ] as const)("answers a half-closed lookup in full (%s) and charges it once", async (encoding, extra) => {
    const key = await newKey(100, 100);
    const head = requestHead(`GET ${FOLLOWERS} HTTP/1.1`, { Host: "localhost", Authorization: `Bearer ${key.token}`, ...extra });
    const answer = await halfClosedExchange(target.baseUrl, head);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-encoding")).toBe(encoding === "gzip" ? "gzip" : undefined);
    const json = encoding === "gzip" ? zlib.gunzipSync(answer.body).toString("utf8") : answer.body.toString("utf8");
    const envelope = JSON.parse(json) as { code: number; data: unknown };
    expect(envelope.code).toBe(0);
    expect(envelope.data).not.toBeNull();
    expect(await creditsOf(key.id)).toBe(98);
    const log = await requestLog(key.id);
    expect(log.map((event) => [event.status, event.creditsCharged])).toEqual([[200, 2]]);
  });
});
