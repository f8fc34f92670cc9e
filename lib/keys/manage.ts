import { DomainError } from "@/lib/errors";
import type { Db, Queryable } from "@/lib/db/client";
import { env } from "@/lib/env";
import { recordAudit, type Actor } from "@/lib/audit/log";
import { decryptSecret, encryptSecret } from "@/lib/security/aead";
import { derivedKey } from "@/lib/security/secrets";
import { allowanceCovers, spendAllowance, type Role } from "@/lib/users/repository";
import { replaceThresholds } from "@/lib/alerts/thresholds";
import { memberRole, requireWorkspaceRole } from "@/lib/workspaces/access";
import { personalWorkspaceId } from "@/lib/workspaces/repository";
import { roleMay } from "@/lib/workspaces/roles";
import { keyChanged } from "./events";
import type { KeyPolicyPatch } from "./policy-input";
import type { KeyRefill } from "./refill";
import {
  createKey,
  getKey,
  listKeys,
  listWorkspaceKeys,
  lockKey,
  revokeKey,
  rollKey,
  setKeyCap,
  setKeyPolicy,
  topUpKey,
  type ApiKey,
  type KeyCap,
  type KeyPolicy,
} from "./repository";
import { hashToken, sameHash } from "./tokens";

/**
 * Key management as the console does it: who may see a key (its workspace's role table decides:
 * owners and admins every key of the workspace, analysts their own; anything else is "not
 * found"), credit allowances, audit entries in the same transaction, console tokens sealed with
 * AES-256-GCM. No HTTP in here.
 */
export type Principal = { id: string; email: string; role: Role; ip: string };

/** A rule of keys was broken (the key_rule failure); the sentence says which. */
export const keyRuleBroken = (message: string): DomainError => new DomainError("key_rule", message);

const actorOf = (principal: Principal): Actor => ({ id: principal.id, email: principal.email, ip: principal.ip });

/**
 * Whether the principal may see and act on this key: the service administrator any key; a member
 * of the key's workspace whose role manages keys any of its keys; any member, their own — a
 * member demoted below the roles that make keys still sees the keys they made there, suspended
 * (docs/teams.md), and may revoke them.
 */
const canSee = async (db: Queryable, principal: Principal, key: ApiKey): Promise<boolean> => {
  if (principal.role === "admin") return true;
  if (key.workspaceId === null) return false;
  const role = await memberRole(db, key.workspaceId, principal.id);
  if (role === null) return false;
  return roleMay(role, "keys.manage") || key.ownerId === principal.id;
};

const consoleTokenKey = () => derivedKey("console-token");
export const sealToken = (keyId: string, token: string) => encryptSecret(consoleTokenKey(), token, `console-token:${keyId}`);

export const visibleKeys = (db: Db, principal: Principal, scope: "mine" | "all" = "mine"): Promise<ApiKey[]> =>
  principal.role === "admin" && scope === "all" ? listKeys(db) : listKeys(db, principal.id);

/**
 * A workspace's keys as this principal may see them: every key for a role that manages keys (and
 * the service administrator), their own for any other member (a viewer's: the ones they made
 * before a demotion, suspended); a workspace they are not in is not found.
 */
export const workspaceKeys = async (db: Db, principal: Principal, workspaceId: string): Promise<ApiKey[]> => {
  const membership = await requireWorkspaceRole(db, principal, workspaceId, "workspace.read");
  if (membership.serviceAdmin || (membership.role !== null && roleMay(membership.role, "keys.manage"))) {
    return listWorkspaceKeys(db, workspaceId);
  }
  return listWorkspaceKeys(db, workspaceId, principal.id);
};

export const visibleKey = async (db: Db, principal: Principal, id: string): Promise<ApiKey | null> => {
  const key = await getKey(db, id);
  return key && (await canSee(db, principal, key)) ? key : null;
};

export type NewKeyInput = {
  name: string;
  credits: number;
  qpsLimit: number;
  expiresAt: Date | null;
  useForConsole: boolean;
  /** The workspace the key belongs to; omitted: the principal's personal workspace. */
  workspaceId?: string;
  /** A cap of the key's own (docs/teams.md "Caps and budgets"). */
  cap?: KeyCap | null;
} & KeyPolicyPatch;

/** The policy a patch leaves: what it sets, and for what it omits, what the key has. */
const policyAfter = (patch: KeyPolicyPatch, current: KeyPolicy | null): KeyPolicy => ({
  operations: patch.operations !== undefined ? patch.operations : (current?.operations ?? null),
  allowedAddresses: patch.allowedAddresses !== undefined ? patch.allowedAddresses : (current?.allowedAddresses ?? null),
  refill: patch.refill !== undefined ? patch.refill : (current?.refill ?? null),
});

/**
 * Who pays a refill this principal sets: an administrator grants it (null), anyone else pays it
 * from their own allowance, each period what it adds (lib/keys/refill.sql).
 */
const refillPayerOf = (principal: Principal): string | null => (principal.role === "admin" ? null : principal.id);

/** A key that draws from a team's pool has no balance of its own to refill (docs/teams.md "The pool"). */
const pooledRefill = (): DomainError =>
  keyRuleBroken("A team workspace's key draws from its pool and has no refill of its own: the pool is refilled instead.");

const perPeriod = (refill: KeyRefill) => (refill.interval === "daily" ? "a day" : "a month");

/**
 * A refill its payer sets must fit what their allowance holds now (after what the same change
 * already took from it): its per-period maximum, in both modes. The payer's row stays locked until
 * the transaction ends. Nothing is taken here; each period's refill takes what it adds.
 */
const checkRefillAllowance = async (tx: Queryable, payerId: string | null, refill: KeyRefill | null): Promise<void> => {
  if (payerId === null || refill === null) return;
  const allowance = await allowanceCovers(tx, payerId, refill.credits);
  if (allowance?.covers) return;
  throw keyRuleBroken(
    `Not enough credit allowance for a refill of ${refill.credits.toLocaleString("en-US")} credits ${perPeriod(refill)}: ` +
      `your allowance holds ${(allowance?.creditAllowance ?? 0).toLocaleString("en-US")}. Ask an administrator for more.`,
  );
};

/**
 * Room for one more active key of this owner (MAX_KEYS_PER_USER): keys are cheap to make, and
 * each may be flooded with free refusals, so their number is bounded. Revoked and expired keys do
 * not count. The owner's row is locked first, so two requests at once are counted one after the
 * other. Call inside the transaction that creates the key.
 */
export const claimKeyRoom = async (tx: Queryable, ownerId: string, maxKeys: number): Promise<void> => {
  await tx.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [ownerId]);
  const rows = await tx.query<{ active: number | string }>(
    // The keys that count are the ones that can be used (the rule is written once: usable_keys).
    "SELECT count(*) AS active FROM usable_keys WHERE owner_id = $1",
    [ownerId],
  );
  const active = Number(rows[0]?.active ?? 0);
  if (active >= maxKeys) {
    throw keyRuleBroken(
      `You already have ${active.toLocaleString("en-US")} active keys, the most one user may hold ` +
        `(${maxKeys.toLocaleString("en-US")}). Revoke a key you no longer use, then create the new one.`,
    );
  }
};

export const issueKey = (db: Db, secret: string, principal: Principal, input: NewKeyInput) =>
  db.transaction(async (tx) => {
    const workspaceId = input.workspaceId ?? personalWorkspaceId(principal.id);
    const membership = await requireWorkspaceRole(tx, principal, workspaceId, "keys.own");
    // A team's key draws from the pool: nothing comes from the maker's allowance.
    if (!membership.workspace.personal && input.credits > 0) {
      throw keyRuleBroken("A team workspace's key draws from its pool: leave credits at 0, and set a cap to limit it.");
    }
    await claimKeyRoom(tx, principal.id, env().MAX_KEYS_PER_USER);
    if (input.credits > 0 && !(await spendAllowance(tx, principal.id, input.credits))) {
      throw keyRuleBroken("Not enough credit allowance for that many credits. Ask an administrator for more.");
    }
    const policy = policyAfter(input, null);
    if (!membership.workspace.personal && policy.refill !== null) throw pooledRefill();
    const refillPayerId = policy.refill === null ? null : refillPayerOf(principal);
    await checkRefillAllowance(tx, refillPayerId, policy.refill);
    const issued = await createKey(tx, secret, {
      name: input.name,
      ownerId: principal.id,
      credits: input.credits,
      qpsLimit: input.qpsLimit,
      expiresAt: input.expiresAt,
      ...policy,
      refillPayerId,
      workspaceId,
      cap: input.cap ?? null,
    });
    if (input.alertThresholds) await replaceThresholds(tx, issued.key.id, input.alertThresholds);
    if (input.useForConsole) {
      await tx.query("INSERT INTO console_tokens (key_id, user_id, token_encrypted) VALUES ($1, $2, $3)", [
        issued.key.id,
        principal.id,
        sealToken(issued.key.id, issued.token),
      ]);
      await tx.query("UPDATE users SET console_key_id = $2 WHERE id = $1", [principal.id, issued.key.id]);
    }
    await recordAudit(tx, actorOf(principal), "key.create", { type: "key", id: issued.key.id }, {
      name: input.name,
      credits: input.credits,
      qpsLimit: input.qpsLimit,
      expiresAt: input.expiresAt?.toISOString() ?? null,
      console: input.useForConsole,
      ...policy,
      refillPayerId,
      alertThresholds: input.alertThresholds ?? [],
      cap: input.cap ?? null,
    }, workspaceId);
    return issued;
  });

/**
 * Changes what a key may call, from where, how it is refilled and when it alerts. The owner or an
 * admin may; every instance forgets the key's cached credentials at once (keyChanged). A change
 * that sets the refill makes whoever sets it its payer (refillPayerOf), checked against their
 * allowance, and re-arms it if it had stopped; one that leaves the refill out keeps who pays.
 */
export const updateVisibleKeyPolicy = async (db: Db, principal: Principal, id: string, patch: KeyPolicyPatch): Promise<ApiKey | null> => {
  const updated = await db.transaction(async (tx) => {
    // The key before its payer, in the order the refill sweep locks them.
    const key = await lockKey(tx, id);
    if (!key || !(await canSee(tx, principal, key))) return null;
    if (key.status !== "active") throw keyRuleBroken("Only an active key can be changed.");
    const policy = policyAfter(patch, key);
    if (key.poolId !== null && patch.refill !== undefined && patch.refill !== null) throw pooledRefill();
    const refillSet = patch.refill === undefined ? undefined : { payerId: patch.refill === null ? null : refillPayerOf(principal) };
    if (refillSet) await checkRefillAllowance(tx, refillSet.payerId, policy.refill);
    const result = await setKeyPolicy(tx, id, policy, refillSet);
    if (patch.alertThresholds) await replaceThresholds(tx, id, patch.alertThresholds);
    await recordAudit(tx, actorOf(principal), "key.policy", { type: "key", id }, {
      ...policy,
      ...(refillSet ? { refillPayerId: refillSet.payerId } : {}),
      ...(patch.alertThresholds ? { alertThresholds: patch.alertThresholds } : {}),
    }, key.workspaceId);
    return result;
  });
  if (updated) keyChanged(id);
  return updated;
};

export const revokeVisibleKey = async (db: Db, principal: Principal, id: string): Promise<ApiKey | null> => {
  const revoked = await db.transaction(async (tx) => {
    const key = await getKey(tx, id);
    if (!key || !(await canSee(tx, principal, key))) return null;
    const result = await revokeKey(tx, id);
    await tx.query("DELETE FROM console_tokens WHERE key_id = $1", [id]);
    await recordAudit(tx, actorOf(principal), "key.revoke", { type: "key", id }, { name: key.name }, key.workspaceId);
    return result;
  });
  if (revoked) keyChanged(id);
  return revoked;
};

export const GRACE_PERIODS_MS = { none: 0, "1h": 3_600_000, "24h": 86_400_000 } as const;
export type GracePeriod = keyof typeof GRACE_PERIODS_MS;

/**
 * Rolling hands out a new token, so only the key's owner may roll it (and an admin an ownerless
 * CLI key): an admin may revoke, top up and cap another user's key, never obtain its token.
 */
export const rollVisibleKey = async (
  db: Db,
  secret: string,
  principal: Principal,
  id: string,
  grace: GracePeriod,
): Promise<{ key: ApiKey; token: string } | null> => {
  const rolled = await db.transaction(async (tx) => {
    const key = await getKey(tx, id);
    if (!key || !(await canSee(tx, principal, key))) return null;
    if (key.ownerId !== null && key.ownerId !== principal.id) {
      throw keyRuleBroken("Only the key's owner can roll it. Revoke it instead, or ask the owner to roll it.");
    }
    if (key.status !== "active") throw keyRuleBroken("Only an active key can be rolled.");
    const result = await rollKey(tx, secret, id, GRACE_PERIODS_MS[grace]);
    if (!result) return null;
    // The console keeps working with a rolled key: its sealed token follows the roll.
    await tx.query("UPDATE console_tokens SET token_encrypted = $2 WHERE key_id = $1", [id, sealToken(id, result.token)]);
    await recordAudit(tx, actorOf(principal), "key.roll", { type: "key", id }, { grace }, key.workspaceId);
    return result;
  });
  if (rolled) keyChanged(id);
  return rolled;
};

/** Admin only (checked by the caller's route): adds credits with a reason. */
export const topUpAnyKey = (db: Db, principal: Principal, id: string, credits: number, reason: string) =>
  db.transaction(async (tx) => {
    const current = await getKey(tx, id);
    if (current?.poolId) throw keyRuleBroken("This key draws from its team's pool: add credits to the pool instead.");
    const key = await topUpKey(tx, id, credits);
    if (!key) return null;
    await recordAudit(tx, actorOf(principal), "key.credits", { type: "key", id }, { credits, reason }, key.workspaceId);
    return key;
  });

/**
 * Sets or clears a key's own cap (day, month or in all); who may is whoever may see the key and
 * manage the workspace's keys — a member may not lift the cap set on their own key.
 */
export const capVisibleKey = async (db: Db, principal: Principal, id: string, cap: KeyCap | null): Promise<ApiKey | null> => {
  const capped = await db.transaction(async (tx) => {
    const key = await lockKey(tx, id);
    if (!key || !(await canSee(tx, principal, key))) return null;
    if (key.workspaceId !== null) await requireWorkspaceRole(tx, principal, key.workspaceId, "keys.manage");
    if (key.status !== "active") throw keyRuleBroken("Only an active key can be capped.");
    const result = await setKeyCap(tx, id, cap);
    await recordAudit(tx, actorOf(principal), "key.cap", { type: "key", id }, { cap }, key.workspaceId);
    return result;
  });
  if (capped) keyChanged(id);
  return capped;
};

/**
 * Makes a key the one the console uses. A key issued "for the console" already has its token
 * sealed; for another key the owner proves possession by pasting its token once.
 */
export const chooseConsoleKey = (db: Db, principal: Principal, id: string, token: string | undefined) =>
  db.transaction(async (tx) => {
    const key = await getKey(tx, id);
    if (!key || key.ownerId !== principal.id) return null;
    if (key.status !== "active") throw keyRuleBroken("A revoked key cannot be the console key.");
    // The console spends with it: the principal's own role in the key's workspace must run lookups
    // there (the service administrator's reach over every workspace does not make them a member).
    const role = key.workspaceId === null ? null : await memberRole(tx, key.workspaceId, principal.id);
    if (role === null || !roleMay(role, "lookups.run")) {
      throw new DomainError("forbidden", `Your role in this key's workspace (${role ?? "none"}) cannot run lookups, so the console cannot use this key.`);
    }
    const sealed = await tx.query<{ key_id: string }>("SELECT key_id FROM console_tokens WHERE key_id = $1", [id]);
    if (sealed.length === 0) {
      if (!token) throw keyRuleBroken("Paste this key's token once so the console can use it.");
      const stored = await tx.query<{ token_hash: Uint8Array }>("SELECT token_hash FROM api_keys WHERE id = $1", [id]);
      const hash = stored[0]?.token_hash;
      if (!hash || !sameHash(hashToken(token.trim()), Buffer.from(hash))) {
        throw keyRuleBroken("That token does not belong to this key.");
      }
      await tx.query("INSERT INTO console_tokens (key_id, user_id, token_encrypted) VALUES ($1, $2, $3)", [
        id,
        principal.id,
        sealToken(id, token.trim()),
      ]);
    }
    await tx.query("UPDATE users SET console_key_id = $2 WHERE id = $1", [principal.id, id]);
    await recordAudit(tx, actorOf(principal), "key.console", { type: "key", id }, {}, key.workspaceId);
    return key;
  });

/**
 * The token the console uses for this user's lookups — server-side only, never sent to a browser.
 * Without a workspace: their chosen console key, only while it belongs to the workspace active
 * now (a key chosen in a team does not spend there from another workspace). With a workspace (a
 * console batch's): the user's console key in that workspace — their chosen one when it is there,
 * else their newest console-capable key there — so a batch keeps its workspace's key whichever
 * workspace the user switches to meanwhile.
 */
export const consoleToken = async (db: Db, userId: string, workspaceId?: string | null): Promise<{ keyId: string; token: string } | null> => {
  const rows =
    workspaceId === undefined || workspaceId === null
      ? await db.query<{ key_id: string; token_encrypted: string }>(
          `SELECT c.key_id, c.token_encrypted FROM users u
           JOIN console_tokens c ON c.key_id = u.console_key_id AND c.user_id = u.id
           JOIN api_keys k ON k.id = c.key_id
           JOIN workspace_members m ON m.workspace_id = k.workspace_id AND m.user_id = u.id
           WHERE u.id = $1 AND k.workspace_id = COALESCE(u.active_workspace_id, 'wsp_' || u.id)`,
          [userId],
        )
      : await db.query<{ key_id: string; token_encrypted: string }>(
          `SELECT c.key_id, c.token_encrypted FROM console_tokens c JOIN api_keys k ON k.id = c.key_id JOIN users u ON u.id = c.user_id
           WHERE c.user_id = $1 AND k.workspace_id = $2 AND k.status = 'active'
           ORDER BY (k.id = u.console_key_id) DESC, k.created_at DESC, k.id LIMIT 1`,
          [userId, workspaceId],
        );
  const row = rows[0];
  if (!row) return null;
  return { keyId: row.key_id, token: decryptSecret(consoleTokenKey(), row.token_encrypted, `console-token:${row.key_id}`) };
};

/** Keys of this user that the console can switch to (their token is sealed server-side). */
export const consoleCapableKeyIds = async (db: Db, userId: string): Promise<string[]> =>
  (await db.query<{ key_id: string }>("SELECT key_id FROM console_tokens WHERE user_id = $1", [userId])).map((row) => row.key_id);
