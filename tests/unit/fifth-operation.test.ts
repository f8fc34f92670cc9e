import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pipelineBatchLookup } from "@/lib/api/batch-lookup";
import { createV1Router } from "@/lib/api/v1-router";
import { createRunner, type Runner } from "@/lib/batches/runner";
import { createCursorCodec } from "@/lib/connectors/cursor";
import { selectConnector } from "@/lib/connectors/select";
import { createStoreConnector } from "@/lib/connectors/store";
import { createSuppressionList } from "@/lib/connectors/suppression";
import { migrateWithKinds } from "@/lib/database";
import type { Db } from "@/lib/db/client";
import { cacheTtlSeconds, EnvError, parseEnv } from "@/lib/env";
import { createFront } from "@/lib/front/front";
import { exportRecords } from "@/lib/import/export";
import { importFiles } from "@/lib/import/importer";
import { createKey } from "@/lib/keys/repository";
import { createMcpHandler } from "@/lib/mcp/http";
import { MCP_PATH } from "@/lib/mcp/http-path";
import { llmsTxt } from "@/lib/mcp/llms-txt";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { kindsOf, registry, type Registry } from "@/lib/operations";
import { sweepSuppressed } from "@/lib/privacy/erase";
import { subjectAccess } from "@/lib/privacy/subject-access";
import { readSubject, suppressedSubjects, suppressSubject } from "@/lib/privacy/suppressions";
import { createUser } from "@/lib/users/repository";
import { readingList } from "@/tests/fixtures/fifth-operation";
import { readingListKind } from "@/tests/fixtures/fifth-operation/kind";
import { READING_LIST_UPSTREAM_PATH, type ProviderReadingList } from "@/tests/fixtures/fifth-operation/source";
import { pgliteDatabase } from "@/tests/support/databases";
import { testServices } from "@/tests/support/services";
import { creditsOf } from "@/tests/support/usage";

/**
 * Proof that an operation is one unit (docs/adding-an-operation.md): a fifth operation with a
 * kind of record the product has never seen — its parameters, record, table, upstream mapping and
 * subject kind all in tests/fixtures/fifth-operation/ — is added to the registry here and nowhere
 * else, and every part of the product built from a registry serves it: /v1 with the envelope and
 * its 3 credits, the OpenAPI document, llms.txt, MCP, the upstream cache, export and import, and
 * privacy (suppression, erasure, subject access). Each check names the fixture's own id, path or
 * record, so leaving the fixture out of any of them fails it.
 */
const SECRET = "fifth-operation-secret-0123456789-abcdefgh";
const extended: Registry = [...registry, readingList];
const PATH = "/v1/bookclub/get_reading_list";

const providerList: ProviderReadingList = {
  // The provider's own field order and names: the fixture maps them to its record's.
  books: [
    { name: "The Left Hand of Darkness", done: true, author: "Ursula K. Le Guin" },
    { author: "George Eliot", done: false, name: "Middlemarch" },
  ],
  member: { club_name: "Thursday Readers", id: "M-0042" },
};
const storedText =
  '{"member_id":"M-0042","club":"Thursday Readers","entries":[' +
  '{"title":"The Left Hand of Darkness","author":"Ursula K. Le Guin","finished":true},' +
  '{"title":"Middlemarch","author":"George Eliot","finished":false}]}';

/** The provider behind the cache: answers reading lists at its own path, and records each call. */
const providerCalls: string[] = [];
const providerFetch: typeof fetch = async (input) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  providerCalls.push(`${url.pathname}?${url.searchParams.toString()}`);
  const found = url.pathname === `/${READING_LIST_UPSTREAM_PATH}` && url.searchParams.get("member") === "M-0042";
  const body = found
    ? { code: 0, message: "success", data: providerList, requestId: "provider-1" }
    : { code: 404, message: "Member not found", data: null, requestId: "provider-2" };
  return new Response(JSON.stringify(body), { status: found ? 200 : 404, headers: { "Content-Type": "application/json" } });
};

type Envelope = { code: number; message: string; data: unknown; requestId: string };

describe("a fifth operation with a new kind of record, declared in one folder", () => {
  const database = pgliteDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-fifth-"));
  let db: Db;
  let server: http.Server;
  let runner: Runner | undefined;
  let baseUrl = "";
  let token = "";
  let keyId = "";
  let userId = "";

  beforeAll(async () => {
    db = await database.open({ migrate: migrateWithKinds(kindsOf(extended)) });
    const user = await createUser(db, { email: "fifth@example.com", name: "Fifth", role: "admin", passwordHash: null, creditAllowance: 0 });
    userId = user.id;
    const issued = await createKey(db, SECRET, { name: "fifth", ownerId: user.id, credits: 100, qpsLimit: 1000, expiresAt: null });
    token = issued.token;
    keyId = issued.key.id;

    const cursors = createCursorCodec(Buffer.alloc(32, 5));
    const settings = parseEnv({
      DATA_SOURCE: "upstream",
      UPSTREAM_BASE_URL: "http://provider.test",
      UPSTREAM_API_KEY: "provider-key-0001",
      UPSTREAM_RETRIES: "0",
      DATA_DIR: dataDir,
    });
    const connector = selectConnector({
      settings,
      db: async () => db,
      cursors,
      store: createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 0 }),
      sealKey: Buffer.alloc(32, 6),
      fetch: providerFetch,
      suppressions: createSuppressionList({ db: async () => db, read: (queryable) => suppressedSubjects(queryable, extended), refreshMs: 0 }),
    });
    const services = testServices(db, { connector, cursors, secret: SECRET });
    // The batch runner as lib/batches/start.ts starts it, handed the /v1 pipeline's lookup and this registry.
    const batchRunner = createRunner({
      db: async () => db,
      services: async () => ({ lookup: pipelineBatchLookup(services), connector, cursors, eventSiteHosts: [] }),
      settings: {
        leaseMs: 30_000,
        perInstance: 2,
        perUser: 2,
        concurrency: undefined,
        lookupsPerInstance: 8,
        pollMs: 50,
        instanceName: "fifth-operation",
        attemptSettleMs: 1000,
      },
      operations: extended,
    });
    runner = batchRunner;
    const router = createV1Router(extended, {
      services: async () => services,
      openApiDocument: () => buildOpenApiDocument(extended),
      batches: { db: async () => db, publicUrl: "http://fifth.test", wake: () => batchRunner.wake() },
    });
    const front = createFront({
      router,
      // What Next serves in the product; here only /llms.txt (app/llms.txt/route.ts), from the same registry.
      next: async (request, response) => {
        const found = request.url === "/llms.txt";
        response.writeHead(found ? 200 : 404, { "Content-Type": "text/plain; charset=utf-8" });
        response.end(found ? llmsTxt(extended, baseUrl) : "");
      },
      trustedProxyHops: 0,
      cors: { allowedOrigins: [] },
      encodings: [],
      baseHeaders: {},
      nextPolicy: () => "",
      mcp: { path: MCP_PATH, handle: createMcpHandler({ registry: extended, services: async () => services, allowedOrigins: [] }) },
    });
    server = http.createServer((request, response) => void front.handleRequest(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await runner?.stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await db?.close();
    await database.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const lookup = async (memberId: string) => {
    const response = await fetch(`${baseUrl}${PATH}?member_id=${encodeURIComponent(memberId)}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const usageOf = (requestId: string) =>
    db.query<{ operation: string; status: number; credits_charged: number }>(
      "SELECT operation, status, credits_charged::int AS credits_charged FROM usage_events WHERE request_id = $1",
      [requestId],
    );

  it("reads its cache TTL from its own variable with its own default, checked as lib/env.ts checks the others", () => {
    expect(cacheTtlSeconds(readingListKind.ttlVariable, readingListKind.ttlDefaultS, {})).toBe(600);
    expect(cacheTtlSeconds(readingListKind.ttlVariable, readingListKind.ttlDefaultS, { CACHE_TTL_READING_LISTS_S: "90" })).toBe(90);
    expect(() => cacheTtlSeconds(readingListKind.ttlVariable, readingListKind.ttlDefaultS, { CACHE_TTL_READING_LISTS_S: "-1" })).toThrow(EnvError);
  });

  it("has its table from its own schema.sql, applied by the database opener, again without harm", async () => {
    expect(await db.query("SELECT count(*)::int AS count FROM club_reading_lists")).toEqual([{ count: 0 }]);
    await migrateWithKinds([readingListKind])(db);
    expect(await db.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'club_reading_lists' ORDER BY ordinal_position")).toEqual([
      { column_name: "member_id" },
      { column_name: "record" },
      { column_name: "source" },
      { column_name: "fetched_at" },
    ]);
  });

  it("is served under /v1 with the envelope, fetched from the provider and mapped, charging its 3 credits in one usage row", async () => {
    const answer = await lookup("M-0042");
    expect(answer.status).toBe(200);
    const envelope = JSON.parse(answer.text) as Envelope;
    // The record's text is its schema's key order, whatever the provider's order was.
    expect(answer.text).toBe(`{"code":0,"message":"success","data":{"reading_list":${storedText}},"requestId":"${envelope.requestId}"}`);
    expect(answer.headers.get("x-credits-charged")).toBe("3");
    expect(answer.headers.get("x-cache")).toBe("miss");
    expect(await creditsOf(db, keyId)).toBe(97);
    expect(await usageOf(envelope.requestId)).toEqual([{ operation: "get_reading_list", status: 200, credits_charged: 3 }]);
    expect(providerCalls).toEqual([`/${READING_LIST_UPSTREAM_PATH}?member=M-0042`]);
    expect(await db.query("SELECT member_id, record::text AS record, source FROM club_reading_lists")).toEqual([
      { member_id: "M-0042", record: storedText, source: "upstream" },
    ]);
  });

  it("goes through the upstream cache: the second lookup is a hit under its cache kind, the provider asked once", async () => {
    const answer = await lookup("M-0042");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-cache")).toBe("hit");
    expect((JSON.parse(answer.text) as Envelope).data).toEqual({ reading_list: JSON.parse(storedText) as unknown });
    expect(providerCalls).toHaveLength(1);
    expect(await db.query("SELECT kind, subject, page FROM upstream_pages")).toEqual([{ kind: "reading_lists", subject: "M-0042", page: 0 }]);
  });

  it("answers the contract's 400 and its own 404, charging nothing", async () => {
    const invalid = await lookup("42");
    expect([invalid.status, (JSON.parse(invalid.text) as Envelope).message]).toEqual([400, "Invalid parameter: member_id"]);
    const absent = await lookup("M-9999");
    expect([absent.status, (JSON.parse(absent.text) as Envelope).message]).toEqual([404, "Member not found"]);
    expect(absent.headers.get("x-credits-charged")).toBe("0");
  });

  it("appears in the OpenAPI document with its cost, parameter and record", async () => {
    const response = await fetch(`${baseUrl}/v1/openapi.json`);
    const document = (await response.json()) as {
      paths: Record<string, { get?: { operationId: string; "x-credits-cost": number; parameters: { name: string; in: string }[] } }>;
      components: { schemas: Record<string, unknown> };
    };
    const get = document.paths[PATH]?.get;
    expect(get).toMatchObject({ operationId: "get_reading_list", "x-credits-cost": 3 });
    expect(get?.parameters.filter((param) => param.in === "query").map((param) => param.name)).toEqual(["member_id"]);
    expect(document.components.schemas.ReadingList).toBeDefined();
  });

  it("appears in llms.txt as an API call and an MCP tool at its cost", async () => {
    const text = await (await fetch(`${baseUrl}/llms.txt`)).text();
    expect(text).toContain(
      "- `GET /v1/bookclub/get_reading_list` (MCP tool `get_reading_list`): Get a club member's reading list — Member id. 3 credits per found record; parameters: `member_id`.",
    );
  });

  it("is an MCP tool: listed, and called with the record /v1 sends", async () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${token}` };
    const rpc = async (method: string, params?: unknown) => {
      const response = await fetch(`${baseUrl}${MCP_PATH}`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
      return (await response.json()) as { result: { tools?: { name: string; description: string }[]; structuredContent?: unknown; isError?: boolean } };
    };
    const listing = await rpc("tools/list");
    const tool = listing.result.tools?.find((candidate) => candidate.name === "get_reading_list");
    expect(tool?.description).toContain("3 credits");
    const before = await creditsOf(db, keyId);
    const called = await rpc("tools/call", { name: "get_reading_list", arguments: { member_id: "M-0042" } });
    expect(called.result.isError).not.toBe(true);
    expect(called.result.structuredContent).toEqual({ reading_list: JSON.parse(storedText) as unknown });
    expect(await creditsOf(db, keyId)).toBe(before - 3);
  });

  it("runs in a batch from /v1/batches to the end: its lines checked by its own parameter, its results its records", async () => {
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const created = await fetch(`${baseUrl}/v1/batches`, {
      method: "POST",
      headers,
      body: JSON.stringify({ operation: "get_reading_list", inputs: ["M-0042", "M-9999", "nope"] }),
    });
    expect(created.status).toBe(202);
    const { data: batch } = (await created.json()) as { data: { id: string; total: number; rejected: { input: string; reason: string }[]; maxCostCredits: number } };
    expect(batch).toMatchObject({ total: 2, rejected: [{ input: "nope", reason: "not a member id (M- and digits)" }], maxCostCredits: 6 });

    let status = "";
    for (let attempt = 0; attempt < 200 && status !== "done"; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const view = (await (await fetch(`${baseUrl}/v1/batches/${batch.id}`, { headers })).json()) as { data: { status: string } };
      status = view.data.status;
    }
    expect(status).toBe("done");
    const results = await fetch(`${baseUrl}/v1/batches/${batch.id}/results`, { headers });
    expect(results.status).toBe(200);
    expect(results.headers.get("content-disposition")).toContain("get_reading_list.ndjson");
    // One line per found input: its batch exportRecord, the record an import reads.
    expect(await results.text()).toBe(`${storedText}\n`);
    const csv = await (await fetch(`${baseUrl}/v1/batches/${batch.id}/results?format=csv`, { headers })).text();
    expect(csv).toContain("member_id,title,author,finished");
    expect(csv).toContain("M-0042,Middlemarch,George Eliot,false");
    const charged = await db.query<{ credits_charged: number }>(
      "SELECT credits_charged::int AS credits_charged FROM usage_events WHERE operation = 'get_reading_list' AND channel = 'batch' AND status = 200",
    );
    expect(charged).toEqual([{ credits_charged: 3 }]);
  });

  it("is exported as its record, one a line, and imported back into a fresh database as the same text", async () => {
    const file = path.join(dataDir, "reading-lists.ndjson");
    const out = fs.createWriteStream(file);
    const { records } = await exportRecords(db, "reading-lists", out, { operations: extended });
    await new Promise<void>((resolve) => out.end(resolve));
    expect(records).toBe(1);
    expect(fs.readFileSync(file, "utf8")).toBe(`${storedText}\n`);

    const fresh = pgliteDatabase();
    const other = await fresh.open({ migrate: migrateWithKinds(kindsOf(extended)) });
    try {
      const report = await importFiles(other, [{ path: file }], { operations: extended });
      expect(report).toMatchObject({ records: 1, written: 1, skipped: 0, problems: [] });
      expect(await other.query("SELECT member_id, record::text AS record, source FROM club_reading_lists")).toEqual([
        { member_id: "M-0042", record: storedText, source: "import" },
      ]);
      // Importing it again changes nothing: the same canonical text.
      expect(await importFiles(other, [{ path: file }], { operations: extended })).toMatchObject({ records: 1, written: 0, unchanged: 1 });
    } finally {
      await other.close();
      await fresh.cleanup();
    }
  });

  it("is returned in a subject access request of its subject kind", async () => {
    const subject = readSubject("club_member", "m-0042", extended);
    expect(subject).toEqual({ kind: "club_member", subject: "M-0042" });
    const document = await subjectAccess(db, subject, new Date(), extended);
    expect(document).toMatchObject({ subject: { kind: "club_member", subject: "M-0042" }, suppressed: false });
    expect(document.records).toEqual({
      readingList: { source: "upstream", fetchedAt: expect.any(String), record: JSON.parse(storedText) as unknown },
    });    // The /v1 lookups above, found in the request log by the subject's id in their stored query.
    const logged = document.requestLog.items.filter((row) => row.operation === "get_reading_list");
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((row) => /(^|&)member_id=m-0042(&|$)/i.test(row.query))).toBe(true);
  });

  it("is suppressed: its rows and cached pages erased, and /v1 answers 404 charging nothing, the provider not asked", async () => {
    const actor = { id: userId, email: "fifth@example.com", ip: "127.0.0.1" };
    const erased = await suppressSubject(db, actor, readSubject("club_member", "M-0042", extended), "asked to be forgotten", extended);
    expect(erased).toMatchObject({ records: 1, cachePages: 1 });
    expect(await db.query("SELECT member_id FROM club_reading_lists")).toEqual([]);
    expect(await db.query("SELECT subject FROM upstream_pages WHERE kind = 'reading_lists'")).toEqual([]);
    const calls = providerCalls.length;
    const before = await creditsOf(db, keyId);
    const answer = await lookup("m-0042");
    expect([answer.status, (JSON.parse(answer.text) as Envelope).message]).toEqual([404, "Member not found"]);
    expect(answer.headers.get("x-credits-charged")).toBe("0");
    expect(await creditsOf(db, keyId)).toBe(before);
    expect(providerCalls).toHaveLength(calls);
    expect((await subjectAccess(db, { kind: "club_member", subject: "M-0042" }, new Date(), extended)).suppressed).toBe(true);
  });

  it("is swept when a record of a suppressed member reaches its table afterwards (an answer that was in flight)", async () => {
    await db.query("INSERT INTO club_reading_lists (member_id, record, source) VALUES ($1, $2::json, 'upstream')", ["M-0042", storedText]);
    expect(await sweepSuppressed(db, extended)).toBe(1);
    expect(await db.query("SELECT member_id FROM club_reading_lists")).toEqual([]);
  });
});
