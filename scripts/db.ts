import { env } from "@/lib/env";
import { runCli, UsageError, withCliDb } from "@/lib/cli/open";
import { seedDemoData } from "@/lib/demo/seed";

/** npm run db:migrate | db:seed — opening the database applies pending migrations. */
const main = async () => {
  const command = process.argv[2];
  if (command === "migrate") {
    await withCliDb(async () => undefined);
    console.log("Database schema is up to date.");
    return;
  }
  if (command === "seed") {
    await withCliDb((db) => seedDemoData(db, env().publicUrl));
    console.log("Demo data set loaded.");
    return;
  }
  throw new UsageError("usage: tsx scripts/db.ts migrate|seed");
};

runCli(main);
