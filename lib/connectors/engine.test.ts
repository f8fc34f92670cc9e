import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { shelfKind } from "@/tests/support/shelf-kind";
import { pgliteDatabase } from "@/tests/support/databases";
import { createCursorCodec } from "./cursor";
import { singleRecordSource } from "./single-record";
import type { ProviderAnswer } from "./source";
import { createStoreConnector } from "./store";
import { createUpstreamConnector } from "./upstream";
import { isClassified, isProviderFailure, type UpstreamClient } from "./upstream-client";
import type { ProviderConfig } from "./upstream-config";
import { createUpstreamGuard } from "./upstream-resilience";

/**
 * The engine knows no kind of record: a kind it has never seen (shelves, with their own table and
 * cache kind) is read from the store, fetched from the provider, cached and served again by the
 * same code as every operation's, from nothing but its row of kinds and its declared source.
 */

const shelfSchema = z.object({ code: z.string(), books: z.number().int() });
type Shelf = z.infer<typeof shelfSchema>;

const shelfSource = singleRecordSource<{ code: string }, Shelf, { shelf: Shelf }, { shelf: Shelf }>({
  kind: shelfKind,
  id: (params) => params.code,
  dataJson: (recordJson) => `{"shelf":${recordJson}}`,
  recordJson: (shelf) => JSON.stringify({ code: shelf.code, books: shelf.books }),
  recordId: (shelf) => shelf.code,
  write: (db, shelf, source) =>
    db.query(
      `INSERT INTO shelves (code, record, source, fetched_at) VALUES ($1, $2::json, $3, now())
       ON CONFLICT (code) DO UPDATE SET record = EXCLUDED.record, source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at`,
      [shelf.code, JSON.stringify(shelf), source],
    ),
  upstream: {
    path: "v1/library/get_shelf",
    query: (params) => ({ code: params.code }),
    schema: z.object({ shelf: shelfSchema }),
    record: (data) => data.shelf,
  },
});

describe("the source engine, for a kind of record it has never seen", () => {
  const database = pgliteDatabase();
  let db: Db;
  const cursors = createCursorCodec(crypto.randomBytes(32));
  const calls: { path: string; query: Record<string, string> }[] = [];
  const context = { keyOwnerId: null, reserve: async () => true };

  const client: UpstreamClient = {
    get: async (_credentials, path, query): Promise<ProviderAnswer> => {
      calls.push({ path, query });
      return query.code === "ZED" ? { kind: "data", data: { shelf: { code: "ZED", books: 7 } } } : { kind: "not_found", message: "Shelf not found" };
    },
    status: () => ({ status: "idle", lastError: null, lastSuccessAt: null }),
    guard: createUpstreamGuard({ threshold: 5, cooldownMs: 1000, maxConcurrency: 4, isFailure: isProviderFailure, isValue: isClassified }),
  };
  const config: ProviderConfig = {
    keyMode: "shared",
    credentialsFor: async () => ({ baseUrl: "http://provider.test", apiKey: "provider-key-0001", owner: { kind: "shared" } }),
    invalidate: () => undefined,
    describe: async () => {
      throw new Error("not asked in this test");
    },
  };

  beforeAll(async () => {
    db = await database.open();
    // A new kind of record: its table (its cache kind needs nothing: upstream_pages.kind is any text).
    await db.query("CREATE TABLE shelves (code text PRIMARY KEY, record json NOT NULL, source text NOT NULL, fetched_at timestamptz NOT NULL)");
    await db.query(`INSERT INTO shelves VALUES ('ABC', '{"code":"ABC","books":3}', 'import', now())`);
  });

  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  it("answers from the store by the kind's tables", async () => {
    const store = createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 0 });
    expect(await store.lookup(shelfSource, { code: "ABC" }, context)).toEqual({
      found: true,
      dataJson: '{"shelf":{"code":"ABC","books":3}}',
      asOf: expect.any(Date),
    });
    expect(await store.lookup(shelfSource, { code: "NOPE" }, context)).toEqual({ found: false });
  });

  it("fetches from the provider once, caches under the kind's cache kind, and serves the cache within the kind's TTL", async () => {
    const ttls: string[] = [];
    const upstream = createUpstreamConnector({
      db: async () => db,
      cursors,
      client,
      config,
      mode: "upstream",
      store: createStoreConnector({ db: async () => db, cursors, cacheTtlMs: 0 }),
      ttlOf: (kind) => {
        ttls.push(kind.ttlVariable);
        return 60;
      },
      cacheHitCredits: "free",
    });
    const first = await upstream.lookup(shelfSource, { code: "ZED" }, context);
    expect(first).toMatchObject({ found: true, dataJson: '{"shelf":{"code":"ZED","books":7}}', cache: "miss" });
    const second = await upstream.lookup(shelfSource, { code: "ZED" }, context);
    expect(second).toMatchObject({ found: true, dataJson: '{"shelf":{"code":"ZED","books":7}}', cache: "hit", costCredits: 0 });
    expect(calls).toEqual([{ path: "v1/library/get_shelf", query: { code: "ZED" } }]);
    expect(new Set(ttls)).toEqual(new Set(["CACHE_TTL_SHELVES_S"]));
    expect(await db.query("SELECT kind, subject, page FROM upstream_pages")).toEqual([{ kind: "shelves", subject: "ZED", page: 0 }]);
    expect(await upstream.lookup(shelfSource, { code: "GONE" }, context)).toEqual({ found: false });
  });
});
