import type { Db, Queryable } from "@/lib/db/client";
import { createSettler, type Outcome } from "@/lib/credits/settle";
import { createKey } from "@/lib/keys/repository";
import { createUser, type Role, type User } from "@/lib/users/repository";

/**
 * Shared by the usage and alert tests: users, keys, and real usage rows produced by the
 * settle path (createSettler), so tests read exactly what /v1 writes.
 */
export const TEST_SECRET = "unit-test-secret-unit-test-secret-0123456789";

export const newUser = (db: Db, email: string, role: Role = "analyst"): Promise<User> =>
  createUser(db, { email, name: email, role, passwordHash: null, creditAllowance: 0 });

export const newKey = async (db: Db, ownerId: string | null, credits: number, name = "key") =>
  (await createKey(db, TEST_SECRET, { name, ownerId, credits, qpsLimit: 5, expiresAt: null })).key;

/** A key's credits now, as stored. */
export const creditsOf = async (db: Queryable, keyId: string): Promise<number> =>
  Number((await db.query<{ c: number }>("SELECT credits_remaining AS c FROM api_keys WHERE id = $1", [keyId]))[0]?.c);

/** A key's usage records in the order they were written. */
export const usageRowsOf = (db: Queryable, keyId: string) =>
  db.query<{ status: number; credits_charged: number; reason: string }>(
    "SELECT status, credits_charged, reason FROM usage_events WHERE key_id = $1 ORDER BY id",
    [keyId],
  );

export type ScriptedCall = {
  keyId: string;
  operation: string;
  costCredits: number;
  outcome: Outcome;
  /** Milliseconds before now the request started (its created_at). */
  agoMs: number;
  /** Latency the request is given (its recorded latency is this plus the batch's own time). */
  latencyMs: number;
  paramsSummary?: string;
};

export type SettledCall = ScriptedCall & { requestId: string; status: number; creditsCharged: number; createdAt: Date };

/** Settles the calls one after another, in order, each as its own batch. */
export const settleScript = async (db: Db, calls: readonly ScriptedCall[], now = Date.now()): Promise<SettledCall[]> => {
  const settler = createSettler(async () => db);
  const settled: SettledCall[] = [];
  for (const call of calls) {
    const requestId = crypto.randomUUID();
    const createdAt = new Date(now - call.agoMs);
    const result = await settler.settle({
      requestId,
      keyId: call.keyId,
      operation: call.operation,
      costCredits: call.costCredits,
      outcome: call.outcome,
      paramsSummary: call.paramsSummary ?? `q=${settled.length}`,
      startedAt: createdAt.getTime(),
      startedPerf: performance.now() - call.latencyMs,
    });
    settled.push({ ...call, requestId, status: result.status, creditsCharged: result.creditsCharged, createdAt });
  }
  return settled;
};

/**
 * A team workspace whose pool holds `credits`, owned by `ownerId` (docs/teams.md), with these
 * members besides; a key issued in it (newPooledKey) draws from the pool.
 */
export const newTeam = async (db: Queryable, ownerId: string, credits: number, members: { userId: string; budget?: number | null }[] = []) => {
  const id = `wst_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await db.query("INSERT INTO workspaces (id, name, pool_credits, pool_granted) VALUES ($1, 'Team', $2, $2)", [id, credits]);
  await db.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [id, ownerId]);
  for (const member of members) {
    await db.query("INSERT INTO workspace_members (workspace_id, user_id, role, monthly_budget_credits) VALUES ($1, $2, 'analyst', $3)", [
      id,
      member.userId,
      member.budget ?? null,
    ]);
  }
  return id;
};

/** A key of a team workspace, made by `ownerId`: it draws from the pool, within its own cap when given. */
export const newPooledKey = async (
  db: Queryable,
  workspaceId: string,
  ownerId: string,
  cap: { credits: number; period: "day" | "month" | "total" } | null = null,
  name = "pooled",
) => (await createKey(db, TEST_SECRET, { name, ownerId, credits: 0, qpsLimit: 5, expiresAt: null, workspaceId, cap })).key;

/** A workspace's pool now, as stored. */
export const poolOf = async (db: Queryable, workspaceId: string): Promise<number> =>
  Number((await db.query<{ c: number }>("SELECT pool_credits AS c FROM workspaces WHERE id = $1", [workspaceId]))[0]?.c);
