import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseCliOptions } from "@/lib/cli/options";
import { openDb, type Db } from "@/lib/database";
import { createKey } from "@/lib/keys/repository";
import { registry } from "@/lib/operations";
import type { Principal } from "@/lib/keys/manage";
import { listEvents } from "@/lib/usage/events";
import { addDays, utcDay } from "@/lib/usage/period";
import { resolveScope, type UsageScope } from "@/lib/usage/scope";
import { summary } from "@/lib/usage/summary";
import { createUser } from "@/lib/users/repository";

/**
 * `npm run bench:usage`: seeds N usage records (default 1,000,000) spread over the last 30 days,
 * and their daily rollups, into a fresh embedded database (PGlite) with the real schema; then
 * times what /api/usage/summary and /api/usage/events do per request (scope resolution, the
 * queries, JSON encoding; not HTTP or the session check) and prints p50 / max against the
 * 300 ms target. The records are generated in SQL (generate_series), the rollups aggregated from
 * them with the write path's latency buckets, checked against usage_bucket() before timing.
 */
const USAGE = "usage: npm run bench:usage -- [--records N] [--runs N] [--keep]";
const TARGET_MS = 300;
const SECRET = "bench-usage-secret-bench-usage-secret-0123";

const values = parseCliOptions(USAGE, {
  records: { type: "string", default: "1000000" },
  runs: { type: "string", default: "10" },
  keep: { type: "boolean", default: false },
});
const records = Number(values.records);
const runs = Number(values.runs);
if (!Number.isInteger(records) || records < 1000 || !Number.isInteger(runs) || runs < 1) {
  console.error(USAGE);
  process.exit(2);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const seed = async (db: Db) => {
  const analyst = await createUser(db, { email: "bench@example.com", name: "Bench", role: "analyst", passwordHash: null, creditAllowance: 0 });
  const admin = await createUser(db, { email: "bench-admin@example.com", name: "Admin", role: "admin", passwordHash: null, creditAllowance: 0 });
  const others = await createUser(db, { email: "others@example.com", name: "Others", role: "analyst", passwordHash: null, creditAllowance: 0 });
  const keyIds: string[] = [];
  // 10 keys of the analyst and 40 of someone else: a scope is a slice of the table.
  for (let index = 0; index < 50; index += 1) {
    const owner = index < 10 ? analyst.id : others.id;
    const { key } = await createKey(db, SECRET, { name: `bench-${index}`, ownerId: owner, credits: 10_000_000, qpsLimit: 1000, expiresAt: null });
    keyIds.push(key.id);
  }
  await db.query("UPDATE api_keys SET created_at = now() - interval '60 days'");

  let started = performance.now();
  // Statuses per 20 requests: 16 × 200, then 400, 402, 404, 429 (and a 500 every 97th).
  await db.query(
    `INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at, reason)
     SELECT gen_random_uuid(), k.ids[1 + (i % 50)], o.names[1 + ((i / 50) % cardinality(o.names))], s.status,
       CASE WHEN s.status = 200 THEN o.costs[1 + ((i / 50) % cardinality(o.names))] ELSE 0 END,
       (random() * random() * 2000)::int, 'userid=' || (2000000000 + i % 1000),
       now() - make_interval(secs => i * (2592000.0 / $2)),
       CASE WHEN s.status = 402 THEN 'credits' ELSE '' END
     FROM generate_series(1, $2::int) AS i,
       LATERAL (SELECT CASE WHEN i % 97 = 0 THEN 500 WHEN i % 20 < 16 THEN 200
                            ELSE (ARRAY[400, 402, 404, 429])[i % 20 - 15] END AS status) s,
       (SELECT $1::text[] AS ids) k,
       (SELECT $3::text[] AS names, $4::int[] AS costs) o`,
    [keyIds, records, registry.map((operation) => operation.id), registry.map((operation) => operation.costCredits)],
  );
  console.log(`  ${records.toLocaleString("en-US")} usage records in ${seconds(performance.now() - started)}`);

  started = performance.now();
  const bucketCounts = Array.from({ length: 16 }, (_, index) => `count(*) FILTER (WHERE bucket = ${index + 1})`).join(", ");
  // usage_bucket() as integer comparisons (the same buckets; its numeric log is slow over a million rows).
  const bucketOf = `CASE ${Array.from({ length: 15 }, (_, index) => `WHEN latency_ms < ${2 ** index} THEN ${index + 1}`).join(" ")} ELSE 16 END`;
  await db.query(
    `INSERT INTO usage_daily (key_id, day, operation, status, requests, credits, latency_ms_sum, latency_buckets)
     SELECT key_id, day, operation, status, count(*), sum(credits_charged), sum(latency_ms), ARRAY[${bucketCounts}]::int[]
     FROM (SELECT key_id, (created_at AT TIME ZONE 'UTC')::date AS day, operation, status, credits_charged, latency_ms,
             ${bucketOf} AS bucket FROM usage_events) e
     GROUP BY 1, 2, 3, 4`,
  );
  const mismatched = await db.query(
    `SELECT latency_ms FROM generate_series(0, 40000) AS latency_ms WHERE usage_bucket(latency_ms) <> ${bucketOf} LIMIT 1`,
  );
  if (mismatched.length > 0) throw new Error("the bench's latency buckets differ from usage_bucket()");
  const rollups = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_daily"))[0]?.n ?? 0;
  console.log(`  ${rollups.toLocaleString("en-US")} daily rollup rows in ${seconds(performance.now() - started)}`);
  await db.exec("ANALYZE");
  return { analyst, admin };
};

type Timing = { name: string; samples: number[] };

const time = async (name: string, work: () => Promise<unknown>): Promise<Timing> => {
  await work(); // warm-up: plans and caches, as on a running server
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    JSON.stringify(await work());
    samples.push(performance.now() - started);
  }
  return { name, samples };
};

const percentile = (samples: number[], fraction: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
};

const main = async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-usage-"));
  console.log(`Fresh embedded database in ${dataDir}`);
  const db = await openDb({ dataDir, timeoutMs: 600_000 });
  try {
    console.log("Seeding:");
    const { analyst, admin } = await seed(db);
    const today = utcDay(new Date());
    const month = { from: addDays(today, -29), to: today, groupBy: ["day", "operation", "key"] as const };
    const asAnalyst: Principal = { id: analyst.id, email: analyst.email, role: "analyst", ip: "bench" };
    const asAdmin: Principal = { id: admin.id, email: admin.email, role: "admin", ip: "bench" };
    const mine = async (): Promise<UsageScope> => (await resolveScope(db, asAnalyst, {})).scope;
    const everyone = async (): Promise<UsageScope> => (await resolveScope(db, asAdmin, { everyone: true })).scope;
    const analystScope = await mine();
    const oneKey = analystScope.kind === "keys" ? analystScope.keyIds[0] : undefined;
    const single = async (): Promise<UsageScope> => (await resolveScope(db, asAnalyst, { keyId: oneKey })).scope;

    const deepCursor = async () => {
      let cursor: string | undefined;
      const scope = await mine();
      for (let page = 0; page < 200; page += 1) cursor = (await listEvents(db, scope, {}, { cursor, limit: 50 })).nextCursor ?? undefined;
      return cursor;
    };
    const cursorAt10k = await deepCursor();

    console.log(`\nTiming (${runs} runs each, after one warm-up):`);
    const timings = [
      await time("summary, 30 days, analyst's 10 keys (day+operation+key)", async () => summary(db, await mine(), month)),
      await time("summary, 30 days, one key", async () => summary(db, await single(), month)),
      await time("summary, 30 days, everyone (admin)", async () => summary(db, await everyone(), month)),
      await time("log, first page of 50, analyst's keys", async () => listEvents(db, await mine(), {}, { limit: 50 })),
      await time("log, page after 10,000 rows (keyset)", async () => listEvents(db, await mine(), {}, { cursor: cursorAt10k, limit: 50 })),
      await time("log, 402s of one operation, analyst's keys", async () =>
        listEvents(db, await mine(), { status: 402, operation: "followers" }, { limit: 50 }),
      ),
      await time("log, 4xx, analyst's keys", async () => listEvents(db, await mine(), { status: "4xx" }, { limit: 50 })),
      await time("log, first page of 50, everyone (admin)", async () => listEvents(db, await everyone(), {}, { limit: 50 })),
      await time("log, 500s, everyone (admin)", async () => listEvents(db, await everyone(), { status: 500 }, { limit: 50 })),
      await time("log, one key, last 24 hours", async () =>
        listEvents(db, await single(), { from: new Date(Date.now() - 86_400_000) }, { limit: 50 }),
      ),
    ];

    const width = Math.max(...timings.map((timing) => timing.name.length));
    console.log(`${"".padEnd(width)}   p50 ms   max ms   < ${TARGET_MS} ms`);
    let allFast = true;
    for (const timing of timings) {
      const p50 = percentile(timing.samples, 0.5);
      const max = Math.max(...timing.samples);
      const fast = max < TARGET_MS;
      allFast &&= fast;
      console.log(`${timing.name.padEnd(width)}   ${p50.toFixed(1).padStart(6)}   ${max.toFixed(1).padStart(6)}   ${fast ? "yes" : "NO"}`);
    }
    console.log(allFast ? `\nEvery query answered in < ${TARGET_MS} ms (max of ${runs} runs).` : `\nSome queries took ${TARGET_MS} ms or more.`);
    process.exitCode = allFast ? 0 : 1;
  } finally {
    await db.close();
    if (values.keep) console.log(`Kept ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
