import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup, type PipelineResult } from "@/lib/api/pipeline";
import { createCursorCodec } from "@/lib/connectors/cursor";
import { selectConnector, type UpstreamSettings } from "@/lib/connectors/select";
import { createStoreConnector } from "@/lib/connectors/store";
import { createSuppressionList } from "@/lib/connectors/suppression";
import { followersSource } from "@/lib/operations/followers/source";
import type { Db } from "@/lib/db/client";
import { generateDemoData } from "@/lib/demo/generate";
import { seedDemoData } from "@/lib/demo/seed";
import { upsertEvents, upsertFollowerList } from "@/lib/connectors/store-records";
import { parseEnv } from "@/lib/env";
import { importFiles } from "@/lib/import/importer";
import { migrate } from "@/lib/database";
import { claimJobLease } from "@/lib/job-lease";
import { createKey } from "@/lib/keys/repository";
import { eventDetails } from "@/lib/operations/event-details";
import { eventDetailsId } from "@/lib/operations/event-details-id";
import { followers } from "@/lib/operations/followers";
import type { Operation } from "@/lib/operations";
import type { Services } from "@/lib/services";
import { testDatabases } from "@/tests/support/databases";
import { testServices } from "@/tests/support/services";
import { startFakeProvider, type FakeProvider } from "@/tests/support/fake-provider";
import { newUser, settleScript, TEST_SECRET } from "@/tests/support/usage";
import { sweepSuppressed } from "./erase";
import { sweepRetention } from "./retention";
import { subjectAccess } from "./subject-access";
import { liftSuppression, readSubject, suppressedSubjects, suppressSubject } from "./suppressions";

/**
 * Suppression, subject access and retention against real databases (PGlite and PostgreSQL):
 * lookups go through the real pipeline (runLookup) and the connector the server selects, the
 * upstream provider is a real HTTP stand-in (tests/support/fake-provider.ts).
 */
const PUBLIC_URL = "http://localhost:3000";
const demo = generateDemoData(PUBLIC_URL);
const EVENT = "1000000000000001";
const DAY_MS = 86_400_000;

const settings = (overrides: Partial<UpstreamSettings>): UpstreamSettings => ({
  ...parseEnv({ UPSTREAM_API_KEY: "provider-key-0001", UPSTREAM_RETRIES: "0" }),
  ...overrides,
});

type Envelope = { code: number; message: string; data: unknown };
const envelope = (result: PipelineResult) => JSON.parse(result.body) as Envelope;

describe.each(await testDatabases())("privacy on $name", (database) => {
  let db: Db;
  let provider: FakeProvider;
  let actor: { id: string; email: string; ip: string };
  /** The follower of 2000000001 suppressed below. */
  let suppressedFollower = "";
  const cursors = createCursorCodec(crypto.randomBytes(32));

  const build = (overrides: Partial<UpstreamSettings> = {}): Services => {
    const connector = selectConnector({
      settings: settings(overrides),
      db: async () => db,
      cursors,
      store: createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 5000 }),
      sealKey: crypto.randomBytes(32),
      suppressions: createSuppressionList({ db: async () => db, read: suppressedSubjects }),
    });
    return testServices(db, { connector, cursors, secret: TEST_SECRET });
  };

  const newToken = async (credits: number) =>
    createKey(db, TEST_SECRET, { name: "privacy test", ownerId: null, credits, qpsLimit: 100_000, expiresAt: null });
  const call = (services: Services, operation: Operation, token: string, query: Record<string, string>) =>
    runLookup(operation, { authorization: `Bearer ${token}`, query: new URLSearchParams(query), clientAddress: null }, services);
  const credits = async (keyId: string) =>
    Number((await db.query<{ c: string }>("SELECT credits_remaining AS c FROM api_keys WHERE id = $1", [keyId]))[0]?.c);
  const countOf = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(sql, params))[0]?.n);

  /** A finished batch page holding `data` (as the runner records one), `finishedAgoMs` ago. */
  const batchPage = async (operation: string, query: string, data: unknown, finishedAgoMs = 0) => {
    const id = `b-${crypto.randomUUID()}`;
    await db.query(
      "INSERT INTO batches (id, user_id, operation, status, total, max_credits, max_cost_credits) VALUES ($1, $2, $3, 'done', 1, 10, 10)",
      [id, actor.id, operation],
    );
    await db.query("INSERT INTO batch_inputs (batch_id, position, input, outcome) VALUES ($1, 0, $2, 'succeeded')", [id, query]);
    await db.query(
      `INSERT INTO batch_items (batch_id, position, page, query, state, http_status, credits_charged, summary, data, finished_at)
       VALUES ($1, 0, 1, $2, 'done', 200, 4, 'a page', $3, $4)`,
      [id, query, JSON.stringify(data), new Date(Date.now() - finishedAgoMs)],
    );
    return id;
  };
  const batchData = async (id: string) =>
    (await db.query<{ data: string | null }>("SELECT data FROM batch_items WHERE batch_id = $1", [id]))[0]?.data ?? null;

  beforeAll(async () => {
    db = await database.open();
    await seedDemoData(db, PUBLIC_URL);
    const admin = await newUser(db, `privacy-admin-${database.name}@example.com`, "admin");
    actor = { id: admin.id, email: admin.email, ip: "127.0.0.1" };
    provider = await startFakeProvider();
    provider.keys.set("provider-key-0001", 1_000_000);
    for (const record of demo.events) provider.events.set(record.event_id, record);
  }, 180_000);

  afterAll(async () => {
    await provider?.close();
    await db?.close();
    await database.cleanup();
  });

  it("suppressing event 1000000000000001 answers 404 by id and by URL, charging nothing, and erases its batch pages", async () => {
    const services = build();
    const { key, token } = await newToken(100);
    const byId = { event_id: EVENT };
    const byUrl = { url: `https://events.demo.test/events/${EVENT}/` };
    expect((await call(services, eventDetailsId, token, byId)).status).toBe(200);
    const held = await batchPage("event_details", new URLSearchParams(byUrl).toString(), { event: demo.events[0] });
    const other = await batchPage("event_details_id", "event_id=1000000000000002", { event: demo.events[1] });

    const erased = await suppressSubject(db, actor, readSubject("event", EVENT), "erasure request #1");
    services.connector.clearCache();
    expect(erased).toMatchObject({ records: 1, batchPages: 1 });

    for (const [operation, query] of [[eventDetailsId, byId], [eventDetails, byUrl]] as const) {
      const answer = await call(services, operation, token, query);
      expect(answer.status).toBe(404);
      expect(envelope(answer).message).toBe("Event not found");
      expect(answer.headers["X-Credits-Charged"]).toBe("0");
    }
    expect(await credits(key.id)).toBe(96);
    expect(await countOf("SELECT count(*) AS n FROM events WHERE event_id = $1", [EVENT])).toBe(0);
    expect(await batchData(held)).toBeNull();
    expect(await batchData(other)).not.toBeNull();

    // Who, when and why; the erased record's content is nowhere in the log.
    const audit = await db.query<{ actor_email: string; target_id: string; details: string }>(
      "SELECT actor_email, target_id, details::text AS details FROM audit_log WHERE action = 'subject.suppress' AND target_id = $1",
      [`event:${EVENT}`],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor_email).toBe(actor.email);
    expect(audit[0]?.details).toContain("erasure request #1");
    expect(audit[0]?.details).not.toContain(demo.events[0]?.title ?? "(no title)");

    // An instance that did not make the change follows it too (its list of suppressions is read afresh).
    const elsewhere = build();
    expect((await call(elsewhere, eventDetailsId, token, byId)).status).toBe(404);
    await expect(suppressSubject(db, actor, readSubject("event", EVENT), "again")).rejects.toThrow(/already suppressed/);
  });

  it("upstream mode: the provider gets no call for a suppressed event, and its cache rows are gone", async () => {
    const services = build({ DATA_SOURCE: "upstream", UPSTREAM_BASE_URL: provider.url });
    const { token } = await newToken(100);
    const cachedId = "1000000000000005";
    await db.query("DELETE FROM events WHERE event_id = $1", [cachedId]);
    expect((await call(services, eventDetailsId, token, { event_id: cachedId })).headers["X-Cache"]).toBe("miss");
    expect(await countOf("SELECT count(*) AS n FROM upstream_pages WHERE kind = 'event' AND subject = $1", [cachedId])).toBe(1);
    provider.reset();

    await suppressSubject(db, actor, readSubject("event", cachedId), "erasure request #2");
    services.connector.clearCache();
    expect(await countOf("SELECT count(*) AS n FROM upstream_pages WHERE subject = $1", [cachedId])).toBe(0);
    expect(await countOf("SELECT count(*) AS n FROM events WHERE event_id = $1", [cachedId])).toBe(0);

    const never = "1000000000000006";
    await db.query("DELETE FROM events WHERE event_id = $1", [never]);
    await suppressSubject(db, actor, readSubject("event", never), "erasure request #3");
    services.connector.clearCache();
    for (const eventId of [cachedId, never]) {
      const answer = await call(services, eventDetailsId, token, { event_id: eventId });
      expect(answer.status).toBe(404);
      expect(answer.headers["X-Credits-Charged"]).toBe("0");
    }
    expect(provider.calls).toHaveLength(0);
  });

  it("suppressing a follower of 2000000001 shortens the stored list by one; every page stays reachable and none shows it", async () => {
    const services = build();
    const entity = (await db.query<{ id: string }>(
      "SELECT record->'node'->>'entityId' AS id FROM pin_followers WHERE user_id = '2000000001' AND position = 30",
    ))[0]?.id;
    if (!entity) throw new Error("no follower at position 30");
    suppressedFollower = entity;
    const before = await countOf("SELECT follower_count AS n FROM pin_users WHERE user_id = '2000000001'");
    const firstPage = JSON.parse((await services.connector.lookup(followersSource, { userId: "2000000001", offset: 25 }, { keyOwnerId: null, reserve: async () => true }).then((result) => (result.found ? result.dataJson : "null")))) as unknown;
    const page = await batchPage("followers", "userid=2000000001", firstPage);

    // Subject access finds it in the list and in the batch page first.
    const access = await subjectAccess(db, readSubject("pin_user", entity));
    expect(access.followerLists.items.map((entry) => [entry.userid, entry.position])).toContainEqual(["2000000001", 30]);
    expect(access.batchResults.items).toMatchObject([{ batchId: page, holds: "lists" }]);

    await suppressSubject(db, actor, readSubject("pin_user", entity), "erasure request #4");
    services.connector.clearCache();
    expect(await countOf("SELECT follower_count AS n FROM pin_users WHERE user_id = '2000000001'")).toBe(before - 1);
    expect(await countOf("SELECT count(*) AS n FROM pin_followers WHERE user_id = '2000000001'")).toBe(before - 1);

    // Walk every page through the cursors, as a client does.
    const seen: string[] = [];
    let query: Record<string, string> = { userid: "2000000001" };
    for (let pages = 0; pages < 1000; pages += 1) {
      const lookup = followers.prepare(new URLSearchParams(query), { cursors, eventSiteHosts: [] });
      const result = await lookup(services.connector, { keyOwnerId: null, reserve: async () => true });
      if (!result.found) throw new Error(`page ${pages} not found`);
      const data = JSON.parse(result.dataJson) as { followers: { node: { entityId: string } }[]; node_id: string; page_info: { end_cursor: string | null } };
      seen.push(...data.followers.map((entry) => entry.node.entityId));
      if (data.page_info.end_cursor === null) break;
      query = { node_id: data.node_id, cursor: data.page_info.end_cursor };
    }
    expect(seen).toHaveLength(before - 1);
    expect(seen).not.toContain(entity);
    expect(new Set(seen).size).toBe(seen.length);
    const pageData = JSON.parse((await batchData(page)) ?? "null") as { followers: { node: { entityId: string } }[] };
    expect(pageData.followers).toHaveLength(24);
    expect(pageData.followers.map((entry) => entry.node.entityId)).not.toContain(entity);
  });

  it("subject access returns the records, batch pages and request-log rows of a subject", async () => {
    const services = build();
    const { token } = await newToken(100);
    const eventId = "1000000000000002";
    await call(services, eventDetails, token, { url: `https://events.demo.test/events/${eventId}/` });
    await call(services, eventDetailsId, token, { event_id: "10000000000000021" });
    const page = await batchPage("event_details_id", `event_id=${eventId}`, { event: demo.events[1] });

    const document = await subjectAccess(db, readSubject("event", eventId));
    expect(document.suppressed).toBe(false);
    expect(document.records).toMatchObject({ event: { source: "demo", record: { event_id: eventId } } });
    expect(document.batchResults.items.map((item) => item.batchId)).toContain(page);
    expect(document.requestLog.items.map((row) => row.query)).toEqual([`url=https://events.demo.test/events/${eventId}/`]);

    const profile = await subjectAccess(db, readSubject("profile", "urn:li:member:3000000002"));
    expect(profile.records).toMatchObject({ publicationList: { count: 7, publications: { truncated: false } } });
  });

  it("imports skip a suppressed subject and report it; lifting lets it in again", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "privacy-import-"));
    const file = path.join(dir, "records.ndjson");
    fs.writeFileSync(file, [demo.events[0], demo.events[2]].map((record) => JSON.stringify(record)).join("\n"));
    const report = await importFiles(db, [{ path: file }]);
    expect(report.skipped).toBe(1);
    expect(report.problems).toEqual([{ file, line: 1, message: `event ${EVENT} is suppressed: skipped` }]);
    expect(await countOf("SELECT count(*) AS n FROM events WHERE event_id = $1", [EVENT])).toBe(0);

    await liftSuppression(db, actor, readSubject("event", EVENT), "request withdrawn");
    const again = await importFiles(db, [{ path: file }]);
    expect(again.skipped).toBe(0);
    expect(await countOf("SELECT count(*) AS n FROM events WHERE event_id = $1", [EVENT])).toBe(1);
    expect(await countOf("SELECT count(*) AS n FROM audit_log WHERE action = 'subject.lift' AND details::text LIKE '%request withdrawn%'")).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("retention removes what is past each limit and leaves usage totals, credits and the audit log as they were", async () => {
    const { key } = await newToken(1000);
    const now = Date.now();
    await settleScript(
      db,
      [100, 95, 10, 0].map((daysAgo) => ({ keyId: key.id, operation: "event_details_id", costCredits: 4, outcome: "found" as const, agoMs: daysAgo * DAY_MS, latencyMs: 5 })),
      now,
    );
    const oldPage = await batchPage("event_details_id", "event_id=1000000000000003", { event: demo.events[2] }, 40 * DAY_MS);
    const newPage = await batchPage("event_details_id", "event_id=1000000000000004", { event: demo.events[3] }, 5 * DAY_MS);
    await db.query("UPDATE events SET source = 'upstream', fetched_at = $2 WHERE event_id = $1", ["1000000000000008", new Date(now - 31 * DAY_MS)]);
    await db.query("UPDATE events SET source = 'upstream', fetched_at = $2 WHERE event_id = $1", ["1000000000000009", new Date(now - 2 * DAY_MS)]);
    await db.query(
      `INSERT INTO upstream_pages (kind, subject, page, start_position, entry_count, fetched_at) VALUES
       ('event', '1000000000000008', 0, 0, 1, $1), ('event', '1000000000000009', 0, 0, 1, $2)`,
      [new Date(now - 31 * DAY_MS), new Date(now - 2 * DAY_MS)],
    );

    const totals = () =>
      db.query<{ requests: string; credits: string; remaining: string; audit: string }>(
        `SELECT (SELECT sum(requests) FROM usage_daily WHERE key_id = $1)::text AS requests, (SELECT sum(credits) FROM usage_daily WHERE key_id = $1)::text AS credits,
                (SELECT credits_remaining FROM api_keys WHERE id = $1)::text AS remaining, (SELECT count(*) FROM audit_log)::text AS audit`,
        [key.id],
      );
    const before = await totals();
    const report = await sweepRetention(db, { batchResultsDays: 30, requestLogDays: 90, upstreamCacheDays: 30 }, new Date(now));
    expect(report).toMatchObject({ requestRows: 2, batchPages: 1 });
    expect(await totals()).toEqual(before);
    expect(before[0]).toMatchObject({ requests: "4", credits: "16", remaining: "984" });
    expect(await countOf("SELECT count(*) AS n FROM usage_events WHERE key_id = $1", [key.id])).toBe(2);
    expect(await batchData(oldPage)).toBeNull();
    expect(await batchData(newPage)).not.toBeNull();
    expect(await countOf("SELECT count(*) AS n FROM batches WHERE id = $1", [oldPage])).toBe(1);
    expect(await countOf("SELECT count(*) AS n FROM events WHERE event_id IN ('1000000000000008', '1000000000000009')")).toBe(1);
    expect(await countOf("SELECT count(*) AS n FROM upstream_pages WHERE subject IN ('1000000000000008', '1000000000000009')")).toBe(1);

    // A later clock: the rows kept now pass their limits too.
    await sweepRetention(db, { batchResultsDays: 30, requestLogDays: 90, upstreamCacheDays: 30 }, new Date(now + 91 * DAY_MS));
    expect(await countOf("SELECT count(*) AS n FROM usage_events WHERE key_id = $1", [key.id])).toBe(0);
    expect(await batchData(newPage)).toBeNull();
    expect(await totals()).toEqual(before);
  });

  it("the sweep erases what reached the store after a suppression (an answer already in flight, a provider page)", async () => {
    const late = demo.events.find((record) => record.event_id === "1000000000000005");
    const follower = demo.followerLists.flatMap((list) => list.followers).find((entry) => entry.node.entityId === suppressedFollower);
    if (!late || !follower) throw new Error("demo records missing");
    await upsertEvents(db, [late], "upstream");
    await db.query("INSERT INTO upstream_pages (kind, subject, page, start_position, entry_count, fetched_at) VALUES ('event', $1, 0, 0, 1, now())", [late.event_id]);
    await upsertFollowerList(db, { userid: "2000000099", followers: [follower] }, "upstream");
    await upsertFollowerList(db, { userid: "2000000098", followers: [] }, "upstream");

    expect(await sweepSuppressed(db)).toBeGreaterThanOrEqual(2);
    expect(await countOf("SELECT count(*) AS n FROM events WHERE event_id = $1", [late.event_id])).toBe(0);
    expect(await countOf("SELECT count(*) AS n FROM upstream_pages WHERE subject = $1", [late.event_id])).toBe(0);
    expect(await countOf("SELECT count(*) AS n FROM pin_users WHERE user_id IN ('2000000099', '2000000098')")).toBe(1);
    expect(await countOf("SELECT count(*) AS n FROM events")).toBeGreaterThan(30);
  });

  it("suppressing a zero-padded id or a URN in another case stores its canonical spelling, and the migration rewrites older rows so", async () => {
    await suppressSubject(db, actor, readSubject("event", "0001000000000000031"), "padded");
    await suppressSubject(db, actor, readSubject("profile", "urn:li:MEMBER:0003000000031"), "upper case");
    await expect(suppressSubject(db, actor, readSubject("event", "1000000000000031"), "again")).rejects.toThrow(/already suppressed/);

    // Rows written before subjects had one spelling: two of them name one event (the older stays).
    await db.query(
      `INSERT INTO suppressions (kind, subject, reason, created_by_email, created_at) VALUES
       ('event', '01000000000000032', 'older', 'a@example.com', now() - interval '2 days'),
       ('event', '001000000000000032', 'newer', 'a@example.com', now() - interval '1 day'),
       ('pin_user', '0002000000032', 'padded', 'a@example.com', now()),
       ('profile', 'urn:li:Member:03000000032', 'mixed case', 'a@example.com', now()),
       ('profile', 'urn:li:FSD_PROFILE:ACoAAB032', 'letters keep their case', 'a@example.com', now())`,
    );
    await db.query("DELETE FROM schema_migrations WHERE id = '0017_canonical_subjects'");
    expect(await migrate(db)).toEqual(["0017_canonical_subjects"]);
    const rows = await db.query<{ kind: string; subject: string; reason: string }>(
      "SELECT kind, subject, reason FROM suppressions WHERE subject LIKE '%32' OR subject LIKE '%031' OR subject LIKE '%31' ORDER BY kind, subject",
    );
    expect(rows.map((row) => [row.kind, row.subject, row.reason])).toEqual([
      ["event", "1000000000000031", "padded"],
      ["event", "1000000000000032", "older"],
      ["pin_user", "2000000032", "padded"],
      ["profile", "urn:li:fsd_profile:ACoAAB032", "letters keep their case"],
      ["profile", "urn:li:member:3000000031", "upper case"],
      ["profile", "urn:li:member:3000000032", "mixed case"],
    ]);
    const subjects = await suppressedSubjects(db);
    expect(subjects.get("event")).toContain("1000000000000032");
    expect(subjects.get("profile")).toContain("urn:li:member:3000000032");
  });

  it("suppressing a subject erases its records stored under other spellings (a zero-padded id, a URN in another case)", async () => {
    const eventId = "1000000000000034";
    await db.query("INSERT INTO events (event_id, record, source) SELECT '00' || event_id, record, 'upstream' FROM events WHERE event_id = $1", [eventId]);
    await db.query(
      `INSERT INTO upstream_pages (kind, subject, page, start_position, entry_count, fetched_at) VALUES
       ('event', '001000000000000034', 0, 0, 1, now()), ('publications', 'urn:li:MEMBER:03000000077', 1, 0, 1, now())`,
    );
    await db.query(
      `INSERT INTO profiles (urn, publication_count, source) VALUES
       ('urn:li:MEMBER:03000000077', 1, 'upstream'), ('urn:li:Member:3000000077', 1, 'upstream'), ('urn:li:member:30000000770', 1, 'upstream')`,
    );
    await db.query("INSERT INTO publications (urn, position, record) VALUES ('urn:li:MEMBER:03000000077', 0, '{}')");

    expect(await suppressSubject(db, actor, readSubject("event", eventId), "erasure request #5")).toMatchObject({ records: 2, cachePages: 1 });
    expect(await countOf("SELECT count(*) AS n FROM events WHERE ltrim(event_id, '0') = $1", [eventId])).toBe(0);
    expect(await countOf("SELECT count(*) AS n FROM upstream_pages WHERE ltrim(subject, '0') = $1", [eventId])).toBe(0);

    expect(await suppressSubject(db, actor, readSubject("profile", "urn:li:member:3000000077"), "erasure request #6")).toMatchObject({ records: 2, cachePages: 1 });
    expect(await countOf("SELECT count(*) AS n FROM profiles WHERE lower(urn) LIKE 'urn:li:member:%3000000077'")).toBe(0);
    expect(await countOf("SELECT count(*) AS n FROM publications WHERE urn = 'urn:li:MEMBER:03000000077'")).toBe(0);
    // Another member whose id merely contains the digits stays.
    expect(await countOf("SELECT count(*) AS n FROM profiles WHERE urn = 'urn:li:member:30000000770'")).toBe(1);
  });

  it("runs the sweep on one instance at a time (the job lease)", async () => {
    expect(await claimJobLease(db, "privacy-test", "instance-a", 60_000)).toBe(true);
    expect(await claimJobLease(db, "privacy-test", "instance-b", 60_000)).toBe(false);
    expect(await claimJobLease(db, "privacy-test", "instance-a", 60_000)).toBe(true);
    await db.query("UPDATE job_leases SET expires_at = now() - interval '1 second' WHERE name = 'privacy-test'");
    expect(await claimJobLease(db, "privacy-test", "instance-b", 60_000)).toBe(true);
  });
});
