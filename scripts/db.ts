import { env } from "@/lib/env";
import { runCli, UsageError, withCliDb } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import { seedDemoData } from "@/lib/demo/seed";

const USAGE = "usage: npm run db:migrate | npm run db:seed (tsx scripts/db.ts migrate|seed)";

/** npm run db:migrate | db:seed — opening the database applies pending migrations. */
const main = async () => {
  const { positionals } = parseCommandLine(USAGE, {});
  const [command, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, USAGE);
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
  throw new UsageError(command === undefined ? "a command is required: migrate or seed" : `unknown command "${command}" (migrate or seed)`, USAGE);
};

runCli(main);
