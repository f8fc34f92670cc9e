import { parseArgs } from "node:util";
import { CliFailure, EXIT, runCli, UsageError, withCliDb } from "@/lib/cli/open";
import { checkOperations, normaliseAddressList } from "@/lib/keys/access";
import { operationIds } from "@/lib/keys/policy-input";
import { createKey, listKeys, revokeKey, topUpKey, type ApiKey } from "@/lib/keys/repository";
import { authSecret } from "@/lib/security/secrets";

const USAGE = `usage: npm run --silent keys -- <command>
  create --name NAME --credits N [--qps Q] [--json]   issue a key; prints its token once
         [--operations a,b]                           only these operations (default: all, later ones too)
         [--allowed-addresses 203.0.113.0/24,::1]     only from these addresses or CIDR ranges (default: any)
  list [--json]                                       all keys
  revoke ID                                           revoke a key (its next request answers 401)
  topup ID N                                          add N credits to a key`;

const wholeNumber = (value: string | undefined, what: string, min: number, max: number): number => {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`${what} must be a whole number\n${USAGE}`);
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

const row = (key: ApiKey) =>
  [
    key.id,
    key.name,
    key.status,
    `${key.creditsRemaining}/${key.creditsGranted}`,
    `${key.qpsLimit}/s`,
    key.tokenHint,
    key.lastUsedAt?.toISOString() ?? "never",
  ].join("\t");

const main = async () => {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      name: { type: "string" },
      credits: { type: "string" },
      qps: { type: "string" },
      operations: { type: "string" },
      "allowed-addresses": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const [command, ...rest] = positionals;
  switch (command) {
    case "create": {
      const name = values.name?.trim();
      if (!name || name.length > 100) throw new UsageError(`--name is required (1-100 characters)\n${USAGE}`);
      const credits = wholeNumber(values.credits, "--credits", 0, 1_000_000_000);
      const qpsLimit = values.qps === undefined ? 5 : wholeNumber(values.qps, "--qps", 1, 100_000);
      const operations = operationsOption(values.operations);
      const allowedAddresses = addressesOption(values["allowed-addresses"]);
      const { key, token } = await withCliDb((db) =>
        createKey(db, authSecret(), { name, ownerId: null, credits, qpsLimit, expiresAt: null, operations, allowedAddresses }),
      );
      if (values.json) {
        console.log(JSON.stringify({ id: key.id, name: key.name, token, credits: key.creditsRemaining, qps: key.qpsLimit }));
      } else {
        console.log(`Created key ${key.id} "${key.name}" with ${credits} credits and ${qpsLimit} requests/s.`);
        console.log(`Token (shown once; store it now):\n${token}`);
      }
      return;
    }
    case "list": {
      const keys = await withCliDb((db) => listKeys(db));
      if (values.json) console.log(JSON.stringify(keys));
      else {
        console.log(["id", "name", "status", "credits", "qps", "token", "last used"].join("\t"));
        for (const key of keys) console.log(row(key));
      }
      return;
    }
    case "revoke": {
      const [id] = rest;
      if (!id) throw new UsageError(USAGE);
      const key = await withCliDb((db) => revokeKey(db, id));
      if (!key) throw new CliFailure(EXIT.notFound, `no key with id ${id}`);
      console.log(`Revoked ${key.id} "${key.name}".`);
      return;
    }
    case "topup": {
      const [id, amount] = rest;
      if (!id) throw new UsageError(USAGE);
      const credits = wholeNumber(amount, "N", 1, 1_000_000_000);
      const key = await withCliDb((db) => topUpKey(db, id, credits));
      if (!key) throw new CliFailure(EXIT.notFound, `no key with id ${id}`);
      console.log(`Added ${credits} credits to ${key.id}: ${key.creditsRemaining} remaining of ${key.creditsGranted} granted.`);
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
};

runCli(main);
