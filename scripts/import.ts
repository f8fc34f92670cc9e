import { runOperatorCli } from "@/lib/cli/operator/client";

/** npm run import -- FILE… : lib/cli/commands/import.ts, here or in the running server (docs/operations.md). */
runOperatorCli("import");
