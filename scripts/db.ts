import { runOperatorCli } from "@/lib/cli/operator/client";

/** npm run db:migrate | db:seed : lib/cli/commands/db.ts, here or in the running server (docs/operations.md). */
runOperatorCli("db");
