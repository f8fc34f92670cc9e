import { runOperatorCli } from "@/lib/cli/operator/client";

/** npm run keys -- … : lib/cli/commands/keys.ts, here or in the running server (docs/operations.md). */
runOperatorCli("keys");
