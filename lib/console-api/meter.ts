import type { Db } from "@/lib/db/client";
import { getKey } from "@/lib/keys/repository";
import { keyAccount } from "@/lib/usage/account";
import { poolMeter, type PoolMeter } from "@/lib/usage/pool-meter";
import type { User } from "@/lib/users/repository";
import { memberRole } from "@/lib/workspaces/access";
import { activeWorkspaceId } from "@/lib/workspaces/active";
import { roleMay, type WorkspaceRole } from "@/lib/workspaces/roles";
import { cannotRunLookups, limitSentence, type SpendingLimit } from "./spending-limits";

/**
 * The credit meter's numbers (GET /api/console/meter). One figure is "left": what the console key
 * can really spend now — the least of its credits (or its team's pool), its daily cap, its own
 * cap and the member's monthly budget, as /v1/account and the settlement count it
 * (lib/usage/account.ts) — with the limit that sets it. The pool and the budget are shown beside
 * it as what they are, and a role that may not run lookups here (a viewer) is told so.
 */
export type MeterKeyView = {
  id: string;
  name: string;
  /** The key's balance, or its pool's. */
  creditsRemaining: number;
  creditsGranted: number;
  qpsLimit: number;
  /** What it can spend now: the least of every limit. */
  creditsSpendable: number;
  limitedBy: SpendingLimit;
  /** The size of that limit: the credits granted (to the key or its pool), the daily cap, the key's cap or the budget. */
  limitCredits: number;
  /** A daily cap, a cap of its own or a member's budget applies besides the balance. */
  capped: boolean;
  /** The console's sentence for the limit once nothing is spendable; null while something is. */
  limitMessage: string | null;
};

export type MeterView = {
  key: MeterKeyView | null;
  pool: PoolMeter["workspace"] | null;
  budget: PoolMeter["budget"];
  /** Whether the user's role in the active workspace lets them run lookups, and that role. */
  lookups: { allowed: boolean; role: WorkspaceRole | null; message: string | null };
};

const keyView = async (db: Db, user: User, pool: PoolMeter | null, role: WorkspaceRole | null): Promise<MeterKeyView | null> => {
  if (!user.consoleKeyId) return null;
  const key = await getKey(db, user.consoleKeyId);
  if (!key || key.status !== "active" || key.ownerId !== user.id) return null;
  const account = await keyAccount(db, key.id);
  const creditsSpendable = account?.credits_spendable ?? 0;
  const creditsGranted = key.poolId !== null && pool ? pool.workspace.poolGranted : key.creditsGranted;
  const limitedBy = account?.limited_by ?? (key.poolId === null ? "credits" : "pool");
  const limitSizes: Record<SpendingLimit, number | null | undefined> = {
    credits: creditsGranted,
    pool: creditsGranted,
    daily_cap: account?.daily_credit_cap,
    cap: account?.cap?.credits,
    budget: account?.budget?.credits,
  };
  return {
    id: key.id,
    name: key.name,
    creditsRemaining: key.creditsRemaining,
    creditsGranted,
    qpsLimit: key.qpsLimit,
    creditsSpendable,
    limitedBy,
    limitCredits: limitSizes[limitedBy] ?? creditsGranted,
    capped: account !== null && (account.daily_credit_cap !== null || account.cap !== null || account.budget !== null),
    limitMessage: account !== null && creditsSpendable === 0 ? limitSentence(account, pool?.workspace.name ?? null, role) : null,
  };
};

export const meterView = async (db: Db, user: User): Promise<MeterView> => {
  const workspaceId = await activeWorkspaceId(db, user.id);
  const [pool, role] = await Promise.all([poolMeter(db, workspaceId, user.id), memberRole(db, workspaceId, user.id)]);
  const refusedRole = role !== null && !roleMay(role, "lookups.run") ? role : null;
  return {
    key: await keyView(db, user, pool, role),
    pool: pool?.workspace ?? null,
    budget: pool?.budget ?? null,
    lookups: { allowed: refusedRole === null, role, message: refusedRole === null ? null : cannotRunLookups(refusedRole) },
  };
};
