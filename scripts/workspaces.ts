import { runOperatorCli } from "@/lib/cli/operator/client";

/** npm run workspaces -- … : lib/cli/commands/workspaces.ts, here or in the running server (docs/operations.md). */
runOperatorCli("workspaces");
