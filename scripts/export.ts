import { runOperatorCli } from "@/lib/cli/operator/client";

/** npm run export -- … : lib/cli/commands/export.ts, here or in the running server (docs/operations.md). */
runOperatorCli("export");
