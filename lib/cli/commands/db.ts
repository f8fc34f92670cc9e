import type { OperatorCommand } from "@/lib/cli/command";
import { UsageError } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import { seedDemoData } from "@/lib/demo/seed";
import { env } from "@/lib/env";

const USAGE = "usage: npm run db:migrate | npm run db:seed (tsx scripts/db.ts migrate|seed)";

/**
 * npm run db:migrate | db:seed (scripts/db.ts) — opening the database applies pending migrations;
 * the running server's database is migrated already (it migrated it when it opened it).
 */
export const dbCommand: OperatorCommand = async ({ args, out, withDb }) => {
  const { positionals } = parseCommandLine(USAGE, {}, args);
  const [command, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`, USAGE);
  if (command === "migrate") {
    await withDb(async () => undefined);
    out("Database schema is up to date.");
    return;
  }
  if (command === "seed") {
    await withDb((db) => seedDemoData(db, env().publicUrl));
    out("Demo data set loaded.");
    return;
  }
  throw new UsageError(command === undefined ? "a command is required: migrate or seed" : `unknown command "${command}" (migrate or seed)`, USAGE);
};
