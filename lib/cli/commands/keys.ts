import type { OperatorCommand } from "@/lib/cli/command";
import { CliFailure, EXIT, UsageError } from "@/lib/cli/open";
import { parseCommandLine } from "@/lib/cli/options";
import { env } from "@/lib/env";
import { isDomainError } from "@/lib/errors";
import { checkOperations, normaliseAddressList } from "@/lib/keys/access";
import { claimKeyRoom } from "@/lib/keys/manage";
import { operationIds } from "@/lib/keys/policy-input";
import { createKey, listKeys, revokeKey, topUpKey, type ApiKey, type KeyCap } from "@/lib/keys/repository";
import { authSecret } from "@/lib/security/secrets";
import type { Db } from "@/lib/database";
import { findUserByEmail, listUsers, type User } from "@/lib/users/repository";
import { memberRole } from "@/lib/workspaces/access";
import { getWorkspace } from "@/lib/workspaces/repository";

const USAGE = `usage: npm run --silent keys -- <command>
  create --name NAME --credits N [--qps Q] [--owner EMAIL] [--json]
                                     issue a key; prints its token once. With --owner, the key
                                     belongs to that console user (it is in their "My keys")
         [--workspace ID]            a key of that team workspace: it draws from the pool
                                     (--credits 0 or left out); --owner must be a member
         [--cap N --cap-period day|month|total]
                                     a cap of the key's own (credits per day, month, or in all)
         [--operations a,b]          only these operations (default: all, later ones too)
         [--allowed-addresses 203.0.113.0/24,::1]
                                     only from these addresses or CIDR ranges (default: any)
  list [--json]                      all keys, with their owners
  revoke ID                          revoke a key (its next request answers 401)
  topup ID N                         add N credits to a key`;

const COMMANDS = ["create", "list", "revoke", "topup"];

const wholeNumber = (value: string | undefined, what: string, min: number, max: number): number => {
  if (value === undefined) throw new UsageError(`${what} is required`, USAGE);
  if (!/^\d+$/.test(value)) throw new UsageError(`${what} must be a whole number, not "${value}"`, USAGE);
  const number = Number(value);
  if (number < min || number > max) throw new UsageError(`${what} must be between ${min} and ${max}`);
  return number;
};

/** A comma-separated list, or null when the option was not given. */
const listOption = (value: string | undefined): string[] | null =>
  value === undefined ? null : value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");

const operationsOption = (value: string | undefined): string[] | null => {
  const ids = listOption(value);
  if (ids === null) return null;
  const checked = checkOperations(ids, operationIds());
  if (!checked.ok) throw new UsageError(`--operations: ${checked.message}`);
  return checked.operations;
};

const addressesOption = (value: string | undefined): string[] | null => {
  const entries = listOption(value);
  if (entries === null) return null;
  const normalised = normaliseAddressList(entries);
  if (!normalised.ok) throw new UsageError(`--allowed-addresses: ${normalised.message}`);
  return normalised.entries;
};

/** The command's positional arguments, each required, in order; anything more is a mistake. */
const operands = (command: string, given: string[], names: readonly string[]): string[] => {
  if (given.length < names.length) throw new UsageError(`keys ${command} needs ${names.slice(given.length).join(" and ")}`, USAGE);
  if (given.length > names.length) throw new UsageError(`keys ${command} takes ${names.join(" ")}; unexpected "${given[names.length]}"`, USAGE);
  return given;
};

/** The owner a new key gets: an active console user, found by email. */
const findOwner = async (db: Db, email: string | undefined): Promise<User | null> => {
  if (email === undefined) return null;
  const user = await findUserByEmail(db, email);
  if (!user) throw new CliFailure(EXIT.notFound, `no user with email ${email} (create the user in the console under Admin → Users)`);
  if (user.status !== "active") throw new UsageError(`${user.email} is disabled: a key of a disabled user answers 401; enable the user first`);
  return user;
};

const row = (key: ApiKey, owner: string) =>
  [
    key.id,
    key.name,
    owner,
    key.status,
    `${key.creditsRemaining}/${key.creditsGranted}`,
    `${key.qpsLimit}/s`,
    key.tokenHint,
    key.lastUsedAt?.toISOString() ?? "never",
  ].join("\t");

/** `npm run keys -- …` (scripts/keys.ts), here or in the running server (lib/cli/operator). */
export const keysCommand: OperatorCommand = async ({ args, out, withDb }) => {
  const { positionals, values } = parseCommandLine(USAGE, {
    name: { type: "string" },
    credits: { type: "string" },
    qps: { type: "string" },
    owner: { type: "string" },
    operations: { type: "string" },
    "allowed-addresses": { type: "string" },
    workspace: { type: "string" },
    cap: { type: "string" },
    "cap-period": { type: "string" },
    json: { type: "boolean", default: false },
  }, args);
  const [command, ...rest] = positionals;
  switch (command) {
    case "create": {
      operands(command, rest, []);
      const name = values.name?.trim();
      if (!name || name.length > 100) throw new UsageError("--name is required (1-100 characters)", USAGE);
      const workspaceId = values.workspace;
      const credits = workspaceId !== undefined && values.credits === undefined ? 0 : wholeNumber(values.credits, "--credits", 0, 1_000_000_000);
      if (workspaceId !== undefined && credits > 0) {
        throw new UsageError("a key of a team workspace draws from its pool: leave --credits out (or 0); add credits with `workspaces credits`");
      }
      const capPeriod = values["cap-period"];
      if ((values.cap === undefined) !== (capPeriod === undefined)) throw new UsageError("give --cap and --cap-period together", USAGE);
      if (capPeriod !== undefined && capPeriod !== "day" && capPeriod !== "month" && capPeriod !== "total") {
        throw new UsageError(`--cap-period must be day, month or total, not "${capPeriod}"`, USAGE);
      }
      const cap: KeyCap | null = capPeriod === undefined ? null : { credits: wholeNumber(values.cap, "--cap", 0, 1_000_000_000), period: capPeriod };
      const qpsLimit = values.qps === undefined ? 5 : wholeNumber(values.qps, "--qps", 1, 100_000);
      const operations = operationsOption(values.operations);
      const allowedAddresses = addressesOption(values["allowed-addresses"]);
      const { key, token, owner } = await withDb(async (db) => {
        const found = await findOwner(db, values.owner);
        if (workspaceId !== undefined) {
          const workspace = await getWorkspace(db, workspaceId);
          if (!workspace) throw new CliFailure(EXIT.notFound, `no workspace with id ${workspaceId} (see workspaces list)`);
          if (workspace.personal) throw new UsageError(`${workspaceId} is a personal workspace: its keys are its user's; use --owner EMAIL instead`);
          if (found !== null && (await memberRole(db, workspaceId, found.id)) === null) {
            throw new UsageError(`${found.email} is not a member of ${workspaceId}: add them first (workspaces add-member)`);
          }
        }
        // A key given to a user counts towards MAX_KEYS_PER_USER, as one made in the console does.
        const issued = await db.transaction(async (tx) => {
          if (found !== null) await claimKeyRoom(tx, found.id, env().MAX_KEYS_PER_USER);
          return createKey(tx, authSecret(), {
            name,
            ownerId: found?.id ?? null,
            credits,
            qpsLimit,
            expiresAt: null,
            operations,
            allowedAddresses,
            ...(workspaceId === undefined ? {} : { workspaceId }),
            cap,
          });
        });
        return { ...issued, owner: found };
      }).catch((error: unknown) => {
        if (isDomainError(error) && error.code === "key_rule") throw new CliFailure(EXIT.usage, error.message);
        throw error;
      });
      const ownerEmail = owner?.email ?? null;
      if (values.json) {
        out(
          JSON.stringify({ id: key.id, name: key.name, token, credits: key.creditsRemaining, qps: key.qpsLimit, owner: ownerEmail, workspace: key.workspaceId, pool: key.poolId }),
        );
      } else {
        const holds = key.poolId === null ? `with ${credits} credits` : `drawing on the pool of ${key.poolId} (${key.creditsRemaining} credits now)`;
        out(`Created key ${key.id} "${key.name}"${ownerEmail ? ` for ${ownerEmail}` : ""} ${holds} and ${qpsLimit} requests/s.`);
        out(`Token (shown once; store it now):\n${token}`);
      }
      return;
    }
    case "list": {
      operands(command, rest, []);
      const { keys, users } = await withDb(async (db) => ({ keys: await listKeys(db), users: await listUsers(db) }));
      const emails = new Map(users.map((user) => [user.id, user.email]));
      const ownerOf = (key: ApiKey) => (key.ownerId === null ? null : emails.get(key.ownerId) ?? key.ownerId);
      if (values.json) out(JSON.stringify(keys.map((key) => ({ ...key, owner: ownerOf(key) }))));
      else {
        out(["id", "name", "owner", "status", "credits", "qps", "token", "last used"].join("\t"));
        for (const key of keys) out(row(key, ownerOf(key) ?? "-"));
      }
      return;
    }
    case "revoke": {
      const [id = ""] = operands(command, rest, ["a key id (see keys list)"]);
      const key = await withDb((db) => revokeKey(db, id));
      if (!key) throw new CliFailure(EXIT.notFound, `no key with id ${id}`);
      out(`Revoked ${key.id} "${key.name}".`);
      return;
    }
    case "topup": {
      const [id = "", amount] = operands(command, rest, ["a key id", "a number of credits"]);
      const credits = wholeNumber(amount, "N", 1, 1_000_000_000);
      const key = await withDb((db) => topUpKey(db, id, credits));
      if (!key) throw new CliFailure(EXIT.notFound, `no key with id ${id}`);
      out(`Added ${credits} credits to ${key.id}: ${key.creditsRemaining} remaining of ${key.creditsGranted} granted.`);
      return;
    }
    case undefined:
      throw new UsageError(`a command is required: ${COMMANDS.join(", ")}`, USAGE);
    default:
      throw new UsageError(`unknown command "${command}" (one of ${COMMANDS.join(", ")})`, USAGE);
  }
};
