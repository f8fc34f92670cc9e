import { runCli, withCliDb } from "@/lib/cli/open";
import { seedIfEmpty } from "@/lib/demo/seed";
import { env } from "@/lib/env";

/**
 * `tsx tests/api/prepare-db.ts`: what scripts/start.ts does before `next start`, minus the build —
 * migrate, then load the demo data into an empty store. The suite uses it for a second target when
 * sources changed while the first one was building: that target must serve the same build, and a
 * second build would replace `.next` under the server that is already running.
 */
runCli(async () => {
  const seeded = await withCliDb((db) => seedIfEmpty(db, env().publicUrl));
  if (seeded) console.log("Loaded the demo data set into the empty database.");
});
