import { runCli, UsageError, withCliDb } from "@/lib/cli/open";
import { createKey, revokeKey } from "@/lib/keys/repository";
import { authSecret } from "@/lib/security/secrets";

/**
 * `tsx tests/api/issue-keys.ts '<json>'`: issues many keys in one process, through the very
 * calls scripts/keys.ts makes for `create` and `revoke` (withCliDb, createKey, revokeKey), in the
 * environment of a target. One process per target instead of one `keys create` per key keeps the
 * suite's setup short. Input: [{name, credits, qps, revoked}]. Output: one JSON line, an array of
 * {id, name, token, credits, qps, revoked}, on stdout only.
 */
type Request = {
  name: string;
  credits: number;
  qps: number;
  revoked: boolean;
  operations: string[] | null;
  allowedAddresses: string[] | null;
};

const isList = (value: unknown) => value === null || (Array.isArray(value) && value.every((entry) => typeof entry === "string"));

const isRequest = (value: unknown): value is Request => {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.name === "string" &&
    Number.isInteger(record.credits) &&
    Number.isInteger(record.qps) &&
    typeof record.revoked === "boolean" &&
    isList(record.operations) &&
    isList(record.allowedAddresses)
  );
};

runCli(async () => {
  const parsed: unknown = JSON.parse(process.argv[2] ?? "[]");
  if (!Array.isArray(parsed) || !parsed.every(isRequest)) throw new UsageError("usage: issue-keys.ts '[{name, credits, qps, revoked}]'");
  const issued = await withCliDb(async (db) => {
    const keys = [];
    for (const request of parsed) {
      const { key, token } = await createKey(db, authSecret(), {
        name: request.name,
        ownerId: null,
        credits: request.credits,
        qpsLimit: request.qps,
        expiresAt: null,
        operations: request.operations,
        allowedAddresses: request.allowedAddresses,
      });
      if (request.revoked && !(await revokeKey(db, key.id))) throw new Error(`could not revoke ${key.id}`);
      keys.push({ id: key.id, name: key.name, token, credits: key.creditsRemaining, qps: key.qpsLimit, revoked: request.revoked });
    }
    return keys;
  });
  console.log(JSON.stringify(issued));
});
