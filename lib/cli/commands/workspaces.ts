import { recordAudit, type Actor } from "@/lib/audit/log";
import type { OperatorCommand } from "@/lib/cli/command";
import { CliFailure, EXIT, UsageError } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import type { Db } from "@/lib/database";
import { findUserByEmail, type User } from "@/lib/users/repository";
import { memberRole } from "@/lib/workspaces/access";
import { addPoolCredits, createTeamWorkspace, getWorkspace, listAllWorkspaces, type Workspace } from "@/lib/workspaces/repository";
import { isWorkspaceRole } from "@/lib/workspaces/roles";

/**
 * Workspaces for operators (docs/teams.md, docs/operations.md): list them, create a team with its
 * owner, add a member, grant credits to a team's pool. Every change is audited as the CLI's.
 */
const USAGE = `usage: npm run --silent workspaces -- <command>
  list [--json]                      every workspace: id, name, personal or team, pool, members
  create --name NAME --owner EMAIL   a team workspace owned by that console user; prints its id
  add-member ID --email EMAIL --role owner|admin|analyst|viewer
                                     add an existing console user to a team workspace
  credits ID N                       grant N credits to a team workspace's pool`;

const COMMANDS = ["list", "create", "add-member", "credits"];

/**
 * The CLI acts as the operator at the machine: no console user. The same actor when the command
 * runs in the server on the CLI's behalf (lib/cli/operator): one audit trail either way.
 */
const OPERATOR: Actor = { id: null, email: "operator (workspaces CLI)", ip: "local" };

const operands = (command: string, given: string[], names: readonly string[]): string[] => {
  if (given.length < names.length) throw new UsageError(`workspaces ${command} needs ${names.slice(given.length).join(" and ")}`, USAGE);
  if (given.length > names.length) throw new UsageError(`workspaces ${command} takes ${names.join(" ")}; unexpected "${given[names.length]}"`, USAGE);
  return given;
};

const userByEmail = async (db: Db, email: string | undefined, option: string): Promise<User> => {
  if (email === undefined) throw new UsageError(`${option} EMAIL is required`, USAGE);
  const user = await findUserByEmail(db, email);
  if (!user) throw new CliFailure(EXIT.notFound, `no user with email ${email} (create the user in the console under Admin → Users)`);
  return user;
};

const teamWorkspace = async (db: Db, id: string): Promise<Workspace> => {
  const workspace = await getWorkspace(db, id);
  if (!workspace) throw new CliFailure(EXIT.notFound, `no workspace with id ${id} (see workspaces list)`);
  if (workspace.personal) throw new UsageError(`${id} is a personal workspace: it has no pool and takes no members`);
  return workspace;
};

/** `npm run workspaces -- …` (scripts/workspaces.ts), here or in the running server (lib/cli/operator). */
export const workspacesCommand: OperatorCommand = async ({ args, out, withDb }) => {
  const { positionals, values } = parseCommandLine(USAGE, {
    name: { type: "string" },
    owner: { type: "string" },
    email: { type: "string" },
    role: { type: "string" },
    json: { type: "boolean", default: false },
  }, args);
  const [command, ...rest] = positionals;
  switch (command) {
    case "list": {
      operands(command, rest, []);
      const rows = await withDb(async (db) => {
        const workspaces = await listAllWorkspaces(db);
        const counts = await db.query<{ workspace_id: string; members: number | string }>(
          "SELECT workspace_id, count(*) AS members FROM workspace_members GROUP BY workspace_id",
        );
        const members = new Map(counts.map((row) => [row.workspace_id, Number(row.members)]));
        return workspaces.map((workspace) => ({ ...workspace, members: members.get(workspace.id) ?? 0 }));
      });
      if (values.json) out(JSON.stringify(rows));
      else {
        out(["id", "name", "kind", "pool", "members", "qps"].join("\t"));
        for (const row of rows) {
          out(
            [row.id, row.name, row.personal ? "personal" : "team", row.personal ? "-" : `${row.poolCredits}/${row.poolGranted}`, row.members, row.qpsLimit ?? "-"].join("\t"),
          );
        }
      }
      return;
    }
    case "create": {
      operands(command, rest, []);
      const name = values.name?.trim();
      if (!name || name.length > 100) throw new UsageError("--name is required (1-100 characters)", USAGE);
      const workspace = await withDb(async (db) => {
        const owner = await userByEmail(db, values.owner, "--owner");
        return db.transaction((tx) => createTeamWorkspace(tx, OPERATOR, name, owner.id));
      });
      if (values.json) out(JSON.stringify({ id: workspace.id, name: workspace.name }));
      else out(`Created team workspace ${workspace.id} "${workspace.name}" owned by ${values.owner ?? ""}.`);
      return;
    }
    case "add-member": {
      const [id = ""] = operands(command, rest, ["a workspace id (see workspaces list)"]);
      const role = values.role;
      if (!isWorkspaceRole(role)) throw new UsageError("--role must be owner, admin, analyst or viewer", USAGE);
      const added = await withDb(async (db) => {
        const workspace = await teamWorkspace(db, id);
        const user = await userByEmail(db, values.email, "--email");
        if ((await memberRole(db, workspace.id, user.id)) !== null) throw new UsageError(`${user.email} is already a member of ${workspace.id}`);
        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)", [workspace.id, user.id, role]);
          await recordAudit(tx, OPERATOR, "member.join", { type: "user", id: user.id }, { email: user.email, role, via: "cli" }, workspace.id);
        });
        return { workspace, user };
      });
      out(`Added ${added.user.email} to ${added.workspace.id} "${added.workspace.name}" as ${role}.`);
      return;
    }
    case "credits": {
      const [id = "", amount = ""] = operands(command, rest, ["a workspace id", "a number of credits"]);
      if (!/^\d+$/.test(amount) || Number(amount) < 1 || Number(amount) > 1_000_000_000) {
        throw new UsageError(`N must be a whole number between 1 and 1000000000, not "${amount}"`, USAGE);
      }
      const credits = Number(amount);
      const workspace = await withDb(async (db) => {
        await teamWorkspace(db, id);
        return db.transaction((tx) => addPoolCredits(tx, OPERATOR, id, credits, "grant"));
      });
      if (!workspace) throw new CliFailure(EXIT.notFound, `no workspace with id ${id}`);
      out(`Added ${credits} credits to the pool of ${workspace.id}: ${workspace.poolCredits} remaining of ${workspace.poolGranted} granted.`);
      return;
    }
    case undefined:
      throw new UsageError(`a command is required: ${COMMANDS.join(", ")}`, USAGE);
    default:
      throw new UsageError(`unknown command "${command}" (one of ${COMMANDS.join(", ")})`, USAGE);
  }
};
