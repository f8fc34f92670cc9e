import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { BatchView } from "@/lib/batches/view";
import { nodeIdFor } from "@/lib/records/node-id";
import { generateDemoData } from "@/lib/demo/generate";
import { startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { consoleClient, type Session } from "./console-client";
import { embeddedInRun, createKeyWithCli, delay, runTsx, withServerStopped, type ApiTarget, type IssuedKey } from "./harness";
import { paths } from "./http";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * Personal data (docs/security.md "Personal data") over HTTP, on the API suite's production servers
 * (embedded database and PostgreSQL): an admin suppresses demo event 1000000000000001 through the
 * console API; /v1 (by id and URL) and batches answer it not found and free; `npm run export` lacks
 * it and `npm run import` of a file holding it exits 3 naming it; subject access returns the
 * request-log rows naming it; an analyst gets 403 on every privacy route and cross-site requests
 * are refused. The event is lifted and restored at the end, for the suite's other files.
 *
 * Then, on a server of its own whose data source is a stand-in provider that reads subjects
 * leniently (a URN in any case, ids with leading zeros as numbers): every spelling of a suppressed
 * subject answers 404 free in /v1 and in batches with no provider call, and an answer whose own
 * subject was suppressed while it was on its way answers 404 free.
 */
const targets = inject("apiTargets");
const EVENT = "1000000000000001";
const eventUrl = `https://events.demo.test/events/${EVENT}/`;

describe.each(targets.map((target) => [target.kind, target] as const))("privacy on %s", (_kind, target: ApiTarget) => {
  const client = consoleClient(target);
  const demoEvent = generateDemoData(target.publicUrl).events.find((event) => event.event_id === EVENT);
  let admin: Session;
  let analyst: Session;
  let token: string;
  let keyId: string;
  let suppressed = false;

  const v1 = async (pathname: string, query: Record<string, string>) => {
    const response = await fetch(`${target.baseUrl}${pathname}?${new URLSearchParams(query).toString()}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as { code: number; message: string } };
  };
  const subjectBody = (reason: string) => ({ kind: "event", subject: EVENT, reason });

  beforeAll(async () => {
    admin = await client.admin();
    analyst = await client.analyst(admin, "privacy", 1000);
    const key = await client.consoleKey(analyst, 200, 100);
    token = key.token;
    keyId = key.id;
  });

  /** Lifts the suppression and uploads the demo event again (the suite's other files look it up). */
  const liftAndRestore = async () => {
    const lifted = await client.api(admin, "DELETE", "/api/admin/suppressions", subjectBody("test over"));
    const restored = await fetch(`${target.baseUrl}/api/admin/import?name=restore.ndjson`, {
      method: "POST",
      headers: { Cookie: admin.cookie, "Content-Type": "application/x-ndjson" },
      body: JSON.stringify(demoEvent),
    });
    suppressed = false;
    return { lifted, restored: { status: restored.status, body: (await restored.json()) as { written: number } } };
  };

  afterAll(async () => {
    // Only when a test failed before the last one lifted it.
    if (suppressed) await liftAndRestore();
  });

  it("refuses every privacy route to an analyst (403), and to a cross-site request", async () => {
    const routes = [
      ["GET", "/api/admin/suppressions", undefined],
      ["POST", "/api/admin/suppressions", subjectBody("no")],
      ["DELETE", "/api/admin/suppressions", subjectBody("no")],
      ["GET", `/api/admin/subjects/event/${EVENT}`, undefined],
    ] as const;
    for (const [method, route, body] of routes) {
      const answer = await client.api(analyst, method, route, body);
      expect(answer.status, `${method} ${route}`).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: "forbidden" } });
    }
    const crossSite = await fetch(`${target.baseUrl}/api/admin/suppressions`, {
      method: "POST",
      headers: { Cookie: admin.cookie, "Content-Type": "application/json", Origin: "https://evil.example" },
      body: JSON.stringify(subjectBody("forged")),
    });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ error: { code: "cross_origin" } });
    const download = await fetch(`${target.baseUrl}/api/admin/subjects/event/${EVENT}`, {
      headers: { Cookie: admin.cookie, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" },
    });
    expect(download.status).toBe(403);
    expect((await client.api(admin, "POST", "/api/admin/suppressions", { kind: "planet", subject: "1", reason: "x" })).status).toBe(400);
    expect((await client.api(admin, "POST", "/api/admin/suppressions", { kind: "event", subject: "not-digits", reason: "x" })).status).toBe(400);
  });

  it("suppresses event 1000000000000001: /v1 by id and URL answer 404 free, a batch lists it not found and free", async () => {
    expect((await v1(paths.eventById, { event_id: EVENT })).status).toBe(200);
    const created = await client.api(admin, "POST", "/api/admin/suppressions", subjectBody("erasure request (API test)"));
    expect(created.status, created.text).toBe(201);
    suppressed = true;
    expect(created.body).toMatchObject({ kind: "event", subject: EVENT, erased: { records: 1 } });

    for (const [pathname, query] of [[paths.eventById, { event_id: EVENT }], [paths.eventByUrl, { url: eventUrl }]] as const) {
      const answer = await v1(pathname, query);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ code: 404, message: "Event not found" });
      expect(answer.headers.get("x-credits-charged")).toBe("0");
    }

    const id = await client.startBatch(analyst, { operation: "event_details", inputs: [eventUrl, "https://events.demo.test/events/1000000000000002/"], maxCredits: 100 });
    const view = await client.batchWhenDone<BatchView>(analyst, id);
    expect(view).toMatchObject({ status: "done", succeeded: 1, notFound: 1, creditsSpent: 4 });
    const items = (await client.api(analyst, "GET", `/api/batches/${id}/items?limit=10`)).body as { items: { input: string; httpStatus: number; creditsCharged: number }[] };
    expect(items.items.find((item) => item.input === eventUrl)).toMatchObject({ httpStatus: 404, creditsCharged: 0 });

    const listed = await client.api(admin, "GET", "/api/admin/suppressions");
    expect((listed.body as { suppressions: { subject: string; reason: string }[] }).suppressions).toContainEqual(
      expect.objectContaining({ subject: EVENT, reason: "erasure request (API test)" }),
    );
    // 2 lookups of 0 credits, 1 batch page of 4: the key paid for the one record it got.
    expect(await client.creditsOf(analyst, keyId)).toBe(200 - 4 - 4);
  });

  it("subject access returns the request-log rows naming it, as a download, and is audited", async () => {
    const answer = await fetch(`${target.baseUrl}/api/admin/subjects/event/${EVENT}`, { headers: { Cookie: admin.cookie } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="subject-event-1000000000000001\.json"$/);
    const document = (await answer.json()) as { suppressed: boolean; records: object; requestLog: { items: { query: string; status: number }[] } };
    expect(document.suppressed).toBe(true);
    expect(document.records).toEqual({});
    const queries = document.requestLog.items.map((row) => `${row.status} ${row.query}`);
    expect(queries).toContain(`404 event_id=${EVENT}`);
    expect(queries).toContain(`404 url=${eventUrl}`);
    const audit = await client.api(admin, "GET", "/api/admin/audit?limit=20");
    const actions = (audit.body as { entries: { action: string; targetId: string; details: object }[] }).entries.filter((entry) => entry.targetId === `event:${EVENT}`);
    expect(actions.map((entry) => entry.action)).toEqual(expect.arrayContaining(["subject.access", "subject.suppress"]));
    expect(JSON.stringify(actions)).not.toContain(demoEvent?.title ?? "(no title)");
  });

  it("npm run export lacks it, and npm run import of a file holding it exits 3 naming it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "privacy-api-"));
    const file = path.join(dir, "events.ndjson");
    fs.writeFileSync(file, `${JSON.stringify(demoEvent)}\n`);
    const run = async () => ({
      exported: await runTsx(target, ["scripts/export.ts", "--kind", "events"]),
      imported: await runTsx(target, ["scripts/import.ts", file]),
    });
    // The embedded database admits one process: the CLIs run while its server is stopped.
    const { exported, imported } = target.databaseUrl === null ? await withServerStopped(target, run) : await run();
    expect(exported.code, exported.stderr).toBe(0);
    const ids = exported.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { event_id: string }).event_id);
    expect(ids).toContain("1000000000000002");
    expect(ids).not.toContain(EVENT);
    expect(imported.code).toBe(3);
    expect(imported.stderr).toContain(`event ${EVENT} is suppressed: skipped`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lifting lets the event be collected again: uploaded anew, /v1 finds it", async () => {
    const { lifted, restored } = await liftAndRestore();
    expect(lifted.status, lifted.text).toBe(200);
    expect(restored).toEqual({ status: 200, body: expect.objectContaining({ written: 1, skipped: 0 }) });
    expect((await v1(paths.eventById, { event_id: EVENT })).status).toBe(200);
    expect((await client.api(admin, "DELETE", "/api/admin/suppressions", subjectBody("again"))).status).toBe(404);
  });
});

describe.runIf(embeddedInRun)("suppression against a provider that reads subjects leniently (upstream data source)", () => {
  const PROVIDER_KEY = "privacy-provider-key";
  const demo = generateDemoData("http://127.0.0.1");
  const URN = "urn:li:member:3000000001";
  const EVENT_ID = "1000000000000007";
  const USER = "2000000003";
  let provider: FakeProvider;
  let target: ApiTarget;
  let key: IssuedKey;
  let admin: Session;
  let analyst: Session;
  let consoleKey: { id: string; token: string };

  beforeAll(async () => {
    provider = await startFakeProvider({ caseInsensitive: true });
    provider.keys.set(PROVIDER_KEY, 1_000_000);
    for (const record of demo.events) provider.events.set(record.event_id, record);
    for (const list of demo.publicationLists) provider.publications.set(list.urn, list.publications);
    const follower = demo.followerLists[0]?.followers[0];
    if (!follower) throw new Error("no demo follower");
    provider.followers.set(USER, [follower]);
    target = await startOwnServer({
      label: "privacy-upstream",
      env: { DATA_SOURCE: "upstream", UPSTREAM_BASE_URL: provider.url, UPSTREAM_API_KEY: PROVIDER_KEY, UPSTREAM_RETRIES: "0", UPSTREAM_TIMEOUT_MS: "8000" },
      beforeStart: async (server) => {
        key = await createKeyWithCli(server, "privacy-upstream", { credits: 1000, qps: 100 });
      },
    });
    const client = consoleClient(target);
    admin = await client.admin();
    analyst = await client.analyst(admin, "privacy-upstream", 1000);
    consoleKey = await client.consoleKey(analyst, 500, 100);
  }, 420_000);

  afterAll(async () => {
    await stopOwnServer(target);
    await provider?.close();
  });

  const v1 = async (pathname: string, query: Record<string, string>) => {
    const response = await fetch(`${target.baseUrl}${pathname}?${new URLSearchParams(query).toString()}`, { headers: { Authorization: `Bearer ${key.token}` } });
    const body = (await response.json()) as { code: number; message: string; data: { event?: { event_id: string } } | null };
    return { status: response.status, charged: response.headers.get("x-credits-charged"), body };
  };
  const suppress = (kind: string, subject: string) =>
    consoleClient(target).api(admin, "POST", "/api/admin/suppressions", { kind, subject, reason: "erasure request (API test, lenient provider)" });
  const runBatch = async (operation: string, inputs: string[]) => {
    const client = consoleClient(target);
    const id = await client.startBatch(analyst, { operation, inputs, maxCredits: 100 });
    const view = await client.batchWhenDone<BatchView>(analyst, id);
    const items = (await client.api(analyst, "GET", `/api/batches/${id}/items?limit=50`)).body as { items: { input: string; httpStatus: number; creditsCharged: number }[] };
    return { view, items: items.items };
  };

  it("a provider reading leniently answers other spellings of a subject (what the guard must hold back)", async () => {
    const answer = await v1(paths.publications, { urn: "urn:li:MEMBER:3000000002" });
    expect(answer.status).toBe(200);
    expect(provider.calls).toHaveLength(1);
  });

  it("every spelling of a suppressed profile, event and user answers 404 free in /v1 and in batches, and the provider is never called", async () => {
    for (const [kind, subject, stored] of [
      ["profile", "urn:li:Member:03000000001", URN],
      ["event", `0${EVENT_ID}`, EVENT_ID],
      ["pin_user", nodeIdFor(`00${USER}`), USER],
    ] as const) {
      const created = await suppress(kind, subject);
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ kind, subject: stored });
    }
    provider.reset();

    const spellings: [string, string, Record<string, string>][] = [
      ...[URN, "urn:li:MEMBER:3000000001", "urn:li:Member:3000000001", "urn:li:member:03000000001", "urn:li:MEMBER:0003000000001"].map(
        (urn): [string, string, Record<string, string>] => [paths.publications, "Profile not found", { urn }],
      ),
      ...[EVENT_ID, `0${EVENT_ID}`, `0000${EVENT_ID}`].map((id): [string, string, Record<string, string>] => [paths.eventById, "Event not found", { event_id: id }]),
      ...[`https://events.demo.test/events/0${EVENT_ID}/`, `https://www.events.demo.test/events/${EVENT_ID}`].map(
        (url): [string, string, Record<string, string>] => [paths.eventByUrl, "Event not found", { url }],
      ),
      [paths.followers, "User not found", { userid: USER }],
      [paths.followers, "User not found", { userid: `0${USER}` }],
      [paths.followers, "User not found", { node_id: nodeIdFor(`0${USER}`) }],
    ];
    for (const [pathname, message, query] of spellings) {
      const answer = await v1(pathname, query);
      expect({ status: answer.status, message: answer.body.message, charged: answer.charged }, JSON.stringify(query)).toEqual({ status: 404, message, charged: "0" });
    }

    const profiles = await runBatch("get_user_publications", ["urn:li:MEMBER:3000000001", "urn:li:member:03000000001", "urn:li:Member:3000000001"]);
    const events = await runBatch("event_details_id", [EVENT_ID, `0${EVENT_ID}`, `00${EVENT_ID}`]);
    for (const batch of [profiles, events]) {
      expect(batch.view).toMatchObject({ status: "done", notFound: 3, succeeded: 0, creditsSpent: 0 });
      expect(batch.items.map((item) => [item.httpStatus, item.creditsCharged])).toEqual([[404, 0], [404, 0], [404, 0]]);
    }
    expect(provider.calls).toHaveLength(0);
  });

  it("a zero-padded event id the provider reads as the plain one is answered as that event, never a 500", async () => {
    provider.reset();
    const answer = await v1(paths.eventById, { event_id: "01000000000000008" });
    expect({ status: answer.status, charged: answer.charged, eventId: answer.body.data?.event?.event_id }).toEqual({ status: 200, charged: "4", eventId: "1000000000000008" });
    expect(provider.calls).toHaveLength(1);
  });

  it("an answer whose own event was suppressed while it was on its way answers 404, charged nothing", async () => {
    provider.reset();
    provider.queue({ delayMs: 2000 });
    const pending = v1(paths.eventById, { event_id: "1000000000000009" });
    for (let attempt = 0; attempt < 100 && provider.calls.length === 0; attempt += 1) await delay(50);
    expect(provider.calls).toHaveLength(1);
    expect((await suppress("event", "1000000000000009")).status).toBe(201);
    const answer = await pending;
    expect({ status: answer.status, message: answer.body.message, charged: answer.charged }).toEqual({ status: 404, message: "Event not found", charged: "0" });
  });
});
