import type { OperatorCommand } from "@/lib/cli/command";
import { dbCommand } from "./db";
import { exportCommand } from "./export";
import { importCommand } from "./import";
import { keysCommand } from "./keys";
import { workspacesCommand } from "./workspaces";

/**
 * The operator's commands by name: scripts/<name>.ts runs one here, or asks the running server
 * to run it (lib/cli/operator), which finds it in this same table.
 */
export const OPERATOR_COMMANDS = ["keys", "workspaces", "import", "export", "db"] as const;

export type OperatorCommandName = (typeof OPERATOR_COMMANDS)[number];

export const operatorCommands: Record<OperatorCommandName, OperatorCommand> = {
  keys: keysCommand,
  workspaces: workspacesCommand,
  import: importCommand,
  export: exportCommand,
  db: dbCommand,
};
