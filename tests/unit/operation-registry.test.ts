import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup, type PipelineDeps, type PipelineResult } from "@/lib/api/pipeline";
import { createV1Router } from "@/lib/api/v1-router";
import { consoleRoute } from "@/lib/console-api/handler";
import { consoleLookupHandler } from "@/lib/console-api/lookup";
import { createCursorCodec } from "@/lib/connectors/cursor";
import { createStoreConnector } from "@/lib/connectors/store";
import { createSettler } from "@/lib/credits/settle";
import type { Db } from "@/lib/db/client";
import { createAuthenticator } from "@/lib/keys/authenticate";
import { chooseConsoleKey } from "@/lib/keys/manage";
import { createKey } from "@/lib/keys/repository";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { registry, type Registry } from "@/lib/operations";
import { createRateLimiter } from "@/lib/ratelimit/limiter";
import { createAccountReader } from "@/lib/usage/account-reader";
import { summary } from "@/lib/usage/summary";
import { createUser, type User } from "@/lib/users/repository";
import { embeddedInRun, testDatabases } from "@/tests/support/databases";
import { stampOperation } from "@/tests/support/stamp-operation";
import { creditsOf } from "@/tests/support/usage";

/**
 * Proof that the operation is the unit (docs/adding-an-operation.md): one module
 * (tests/support/stamp-operation.ts), added to the registry here and nowhere else, is run by the
 * pipeline with the contract's order of checks, settled at its own cost with one usage record,
 * counted by the usage summary, listed by the OpenAPI document and served by the console's lookup
 * route, and routed at its /v1 path by the router built from the registry (lib/api/v1-router.ts).
 */
const SECRET = "registry-test-secret-0123456789-abcdefghij";
const extended: Registry = [...registry, stampOperation];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-registry-"));
const savedEnv = { AUTH_SECRET: process.env.AUTH_SECRET, DATA_DIR: process.env.DATA_DIR };

beforeAll(() => {
  // The console seals its key's token with a key derived from AUTH_SECRET.
  process.env.AUTH_SECRET = SECRET;
  process.env.DATA_DIR = dataDir;
});

afterAll(() => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const envelope = (result: { body: string }) =>
  JSON.parse(result.body) as { code: number; message: string; data: unknown; requestId: string };

describe.runIf(embeddedInRun)("the operations registry", () => {
  it("lists the stamp operation in the OpenAPI document built from it, with its cost, parameter, record and 404", () => {
    const document = buildOpenApiDocument(extended);
    const get = document.paths["/v1/philately/get_stamp"]?.get;
    expect(get).toMatchObject({ operationId: "get_stamp", summary: "Get a stamp by catalogue code", "x-credits-cost": 3 });
    expect(get?.parameters.filter((param) => param.in === "query").map((param) => [param.name, param.required, param.example])).toEqual([["code", true, "GB-1840-1"]]);
    expect(get?.parameters.find((param) => param.in === "header")?.name).toBe("Cache-Control");
    expect(document.components.schemas.Stamp).toBeDefined();
    expect(document.components.schemas.ErrorEnvelope404_get_stamp).toMatchObject({
      properties: { message: { enum: ["Stamp not found"] } },
    });
    expect(document.components.schemas.ErrorEnvelope400_get_stamp).toMatchObject({
      properties: { message: { enum: ["Missing required parameter: code", "Invalid parameter: code"] } },
    });
    expect(document.tags.map((tag) => tag.name)).toContain("philately");
    // The served document is the registry's own, without the stamp.
    expect(buildOpenApiDocument().paths["/v1/philately/get_stamp"]).toBeUndefined();
  });
});

describe.each(await testDatabases())("the stamp operation on $name", (database) => {
  let db: Db;
  let deps: PipelineDeps;
  let owner: User;

  const issue = async (credits: number, qpsLimit = 100) =>
    createKey(db, SECRET, { name: `stamp-${credits}`, ownerId: owner.id, credits, qpsLimit, expiresAt: null });
  const lookup = (token: string | null, query: string): Promise<PipelineResult> =>
    runLookup(stampOperation, { authorization: token === null ? null : `Bearer ${token}`, query: new URLSearchParams(query), clientAddress: "127.0.0.1" }, deps);
  const credits = (keyId: string) => creditsOf(db, keyId);
  const usageOf = (requestId: string) =>
    db.query<{ operation: string; status: number; credits_charged: number; params_summary: string }>(
      "SELECT operation, status, credits_charged::int AS credits_charged, params_summary FROM usage_events WHERE request_id = $1",
      [requestId],
    );

  beforeAll(async () => {
    db = await database.open();
    const cursors = createCursorCodec(Buffer.alloc(32, 7));
    deps = {
      authenticator: createAuthenticator({ db: async () => db, verify: createTokenVerifier(SECRET), ttlMs: 0 }),
      limiter: createRateLimiter({}),
      settler: createSettler(async () => db),
      connector: createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 0 }),
      cursors,
      eventSiteHosts: [],
    };
    owner = await createUser(db, { email: `stamps-${database.name}@example.com`, name: "Stamps", role: "analyst", passwordHash: null, creditAllowance: 0 });
  });

  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  it("answers 200 with the record and settles its cost, 3 credits, in exactly one usage record", async () => {
    const { key, token } = await issue(10);
    const answer = await lookup(token, "code=GB-1840-1");
    expect(answer.status).toBe(200);
    expect(envelope(answer)).toEqual({
      code: 0,
      message: "success",
      data: { stamp: { code: "GB-1840-1", country: "United Kingdom", year: 1840 } },
      requestId: answer.requestId,
    });
    expect(answer.headers).toMatchObject({ "X-Credits-Cost": "3", "X-Credits-Charged": "3", "X-Credits-Remaining": "7" });
    expect(await credits(key.id)).toBe(7);
    expect(await usageOf(answer.requestId)).toEqual([
      { operation: "get_stamp", status: 200, credits_charged: 3, params_summary: "code=GB-1840-1" },
    ]);
  });

  it("runs the contract's order of checks: 401 → 429 → 400 → 402 → 404, each charging nothing", async () => {
    // Every request below fails more than one check: the first in the contract's order answers.
    const unauthenticated = await lookup(null, "code=nonsense");
    expect([unauthenticated.status, envelope(unauthenticated).message]).toEqual([401, "apiKey is null"]);

    const slow = await issue(2, 1);
    expect((await lookup(slow.token, "code=nonsense")).status).toBe(400);
    const limited = await lookup(slow.token, "code=nonsense");
    expect([limited.status, envelope(limited).message]).toEqual([429, "qps limit exceeded"]);

    const poor = await issue(2);
    const missing = await lookup(poor.token, "");
    expect([missing.status, envelope(missing).message]).toEqual([400, "Missing required parameter: code"]);
    const invalid = await lookup(poor.token, "code=nonsense");
    expect([invalid.status, envelope(invalid).message]).toEqual([400, "Invalid parameter: code"]);
    const unpaid = await lookup(poor.token, "code=XX-0000-0");
    expect([unpaid.status, envelope(unpaid).message]).toEqual([402, "apiKey quota is not enough"]);

    const rich = await issue(10);
    const absent = await lookup(rich.token, "code=XX-0000-0");
    expect([absent.status, envelope(absent).message]).toEqual([404, "Stamp not found"]);

    for (const answer of [limited, missing, invalid, unpaid, absent]) {
      expect(answer.headers["X-Credits-Charged"]).toBe("0");
      expect(await usageOf(answer.requestId)).toEqual([expect.objectContaining({ operation: "get_stamp", status: answer.status, credits_charged: 0 })]);
    }
    expect(await credits(poor.key.id)).toBe(2);
    expect(await credits(rich.key.id)).toBe(10);
  });

  it("is counted by the usage summary: requests and credits under its id", async () => {
    const { key, token } = await issue(20);
    for (const code of ["GB-1840-1", "CH-1843-2", "XX-0000-0"]) await lookup(token, `code=${code}`);
    const today = new Date().toISOString().slice(0, 10);
    const result = await summary(db, { kind: "keys", keyIds: [key.id] }, { from: today, to: today, groupBy: ["operation"], registry: extended });
    const stampGroup = result.groups.operation?.find((group) => group.id === "get_stamp");
    expect(stampGroup).toMatchObject({ requests: 3, credits: 6 });
    expect(result.totals).toMatchObject({ requests: 3, credits: 6 });
    // Every operation of the registry is listed, the unused ones at zero.
    expect(result.groups.operation?.map((group) => group.id)).toEqual(extended.map((operation) => operation.id));
  });

  it("is routed at its /v1 path by the router built from the registry, and only there", async () => {
    const { key, token } = await issue(10);
    const router = (operations: Registry) =>
      createV1Router(operations, { services: async () => ({ ...deps, accounts: createAccountReader(async () => db) }), openApiDocument: () => buildOpenApiDocument(operations) });
    const ask = (operations: Registry, query: string, method = "GET") =>
      router(operations).answer({
        method,
        pathname: "/v1/philately/get_stamp",
        query: new URLSearchParams(query),
        authorization: `Bearer ${token}`,
        ifNoneMatch: null,
        clientAddress: "127.0.0.1",
      });
    const found = await ask(extended, "code=GB-1840-1");
    expect(found.status).toBe(200);
    expect(found.headers["X-Credits-Charged"]).toBe("3");
    expect(envelope(found)).toMatchObject({ code: 0, data: { stamp: { code: "GB-1840-1" } } });
    expect(await credits(key.id)).toBe(7);
    expect((await ask(extended, "code=GB-1840-1", "POST")).headers.Allow).toBe("GET");
    // The process's own registry does not know it: the contract's 404 envelope, nothing charged.
    const unknown = await ask(registry, "code=GB-1840-1");
    expect([unknown.status, envelope(unknown).message]).toEqual([404, "Not found"]);
    expect(await credits(key.id)).toBe(7);
  });

  it("is served by the console's lookup route, with the user's console key", async () => {
    const { key, token } = await issue(10);
    await chooseConsoleKey(db, { id: owner.id, email: owner.email, role: owner.role, ip: "127.0.0.1" }, key.id, token);
    const route = consoleRoute(
      { deps: { currentUser: async () => owner, db: async () => db } },
      consoleLookupHandler({
        registry: extended,
        services: async () => deps,
        source: () => ({ DATA_SOURCE: "store", UPSTREAM_KEY_MODE: "shared" }),
      }),
    );
    const call = (operation: string, query: string) =>
      route(new Request(`http://localhost/api/console/lookup/${operation}?${query}`), { params: Promise.resolve({ operation }) });

    const found = await call("get_stamp", "code=CH-1843-2");
    expect(found.status).toBe(200);
    expect(found.headers.get("x-credits-charged")).toBe("3");
    expect(await found.json()).toMatchObject({ code: 0, data: { stamp: { code: "CH-1843-2", country: "Switzerland" } } });
    expect(await credits(key.id)).toBe(7);

    const absent = await call("get_stamp", "code=XX-0000-0");
    expect([absent.status, (await absent.json()).message]).toEqual([404, "Stamp not found"]);

    // The process's own registry does not know the stamp: the console says so.
    const unknown = await consoleRoute(
      { deps: { currentUser: async () => owner, db: async () => db } },
      consoleLookupHandler({ registry, services: async () => deps, source: () => ({ DATA_SOURCE: "store", UPSTREAM_KEY_MODE: "shared" }) }),
    )(new Request("http://localhost/api/console/lookup/get_stamp?code=GB-1840-1"), { params: Promise.resolve({ operation: "get_stamp" }) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: "not_found", message: "No such operation." } });
  });
});
