import { upsertEvents, upsertFollowerList, upsertPublicationList } from "@/lib/connectors/store-records";
import type { Db, Queryable } from "@/lib/db/client";
import { demoFixtures } from "./fixtures";
import { generateDemoData, type DemoData } from "./generate";

/** Fills the record store with the demo data set (lib/demo/generate.ts). */

export type SeedSummary = { events: number; followers: number; publications: number };

// Any fixed number: serialises the "is it empty? then seed" check of several instances starting
// at once on PostgreSQL (PGlite has a single writer anyway).
const SEED_LOCK_ID = 7_236_002;

const writeDemoData = async (queryable: Queryable, data: DemoData): Promise<SeedSummary> => {
  const summary: SeedSummary = { events: 0, followers: 0, publications: 0 };
  summary.events = await upsertEvents(queryable, data.events, demoFixtures.source);
  for (const list of data.followerLists) {
    summary.followers += await upsertFollowerList(queryable, list, demoFixtures.source);
  }
  for (const list of data.publicationLists) {
    summary.publications += await upsertPublicationList(queryable, list, demoFixtures.source);
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
