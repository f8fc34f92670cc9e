import { upsertEvents, upsertFollowerList, upsertPublicationList } from "@/lib/connectors/store-records";
import type { Db, Queryable } from "@/lib/db/client";
import type { Env } from "@/lib/env";
import { recordKinds, type SubjectKind } from "@/lib/records/kinds";
import { issueKey } from "@/lib/keys/manage";
import type { ApiKey } from "@/lib/keys/repository";
import type { BootstrapResult } from "@/lib/users/bootstrap";
import { demoFixtures } from "./fixtures";
import { generateDemoData, type DemoData } from "./generate";

/** Fills the record store with the demo data set (lib/demo/generate.ts). */

export type SeedSummary = { events: number; followers: number; publications: number };

// Any fixed number: serialises the "is it empty? then seed" check of several instances starting
// at once on PostgreSQL (PGlite has a single writer anyway).
const SEED_LOCK_ID = 7_236_002;

/** How each kind of record (lib/records/kinds.ts) of the data set is written, and what it adds to the summary. */
type DemoWriter = { summary: keyof SeedSummary; write(queryable: Queryable, data: DemoData, source: string): Promise<number> };

const sum = async <Item>(items: readonly Item[], write: (item: Item) => Promise<number>): Promise<number> => {
  let total = 0;
  for (const item of items) total += await write(item);
  return total;
};

const demoWriters: { [Subject in SubjectKind]: DemoWriter } = {
  event: { summary: "events", write: (queryable, data, source) => upsertEvents(queryable, data.events, source) },
  pin_user: {
    summary: "followers",
    write: (queryable, data, source) => sum(data.followerLists, (list) => upsertFollowerList(queryable, list, source)),
  },
  profile: {
    summary: "publications",
    write: (queryable, data, source) => sum(data.publicationLists, (list) => upsertPublicationList(queryable, list, source)),
  },
};

const writeDemoData = async (queryable: Queryable, data: DemoData): Promise<SeedSummary> => {
  const summary: SeedSummary = { events: 0, followers: 0, publications: 0 };
  for (const kind of recordKinds) {
    const writer = demoWriters[kind.subject];
    summary[writer.summary] += await writer.write(queryable, data, demoFixtures.source);
  }
  return summary;
};

/** Writes (or rewrites) the whole demo data set in one transaction. Idempotent. */
export const seedDemoData = (db: Db, publicUrl: string): Promise<SeedSummary> => {
  const data = generateDemoData(publicUrl);
  return db.transaction((tx) => writeDemoData(tx, data));
};

/** Seeds only a store without any event; returns whether it seeded. */
export const seedIfEmpty = (db: Db, publicUrl: string): Promise<boolean> =>
  db.transaction(async (tx) => {
    if (db.kind === "postgres") await tx.query("SELECT pg_advisory_xact_lock($1)", [SEED_LOCK_ID]);
    const rows = await tx.query<{ has_events: boolean }>("SELECT EXISTS (SELECT 1 FROM events) AS has_events");
    if (rows[0]?.has_events) return false;
    await writeDemoData(tx, generateDemoData(publicUrl));
    return true;
  });

/** The console key a brand-new demo install gives its first administrator. */
export const DEMO_KEY = { name: "Demo key (demo data set)", credits: 1000, qpsLimit: 10 } as const;

/**
 * On the first start with the demo data set (the store was empty and has just been seeded) and
 * lookups answered from the record store, the administrator created or configured at that start
 * gets a console key with demo credits, so every lookup page works on first sign-in. Never with
 * an upstream data source: there credits stand for money spent at the provider, and an
 * administrator issues them on purpose. Returns the key, or null when the rule does not apply.
 */
export const grantDemoKey = async (
  db: Db,
  secret: string,
  firstStart: { seeded: boolean; dataSource: Env["DATA_SOURCE"]; admin: BootstrapResult },
): Promise<ApiKey | null> => {
  const { seeded, dataSource, admin } = firstStart;
  if (!seeded || dataSource !== "store" || admin.kind === "existing") return null;
  const principal = { id: admin.userId, email: admin.email, role: "admin" as const, ip: "" };
  const issued = await issueKey(db, secret, principal, { ...DEMO_KEY, expiresAt: null, useForConsole: true });
  return issued.key;
};
