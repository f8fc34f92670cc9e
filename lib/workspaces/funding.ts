import type { Queryable } from "@/lib/db/client";
import type { Actor } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import { addPoolCredits, getWorkspace, type Workspace } from "./repository";

/**
 * The service administrator funds a team's pool (docs/teams.md "Funding a team"): credits are
 * minted here and nowhere else in the console, with a reason kept in the audit log. Who may call
 * this is the edge's to check (an admin-only route); the amount and the workspace are checked
 * here, and the grant itself is one statement: the pool never moves by a value read before.
 */
export const MAX_POOL_GRANT_CREDITS = 1_000_000_000;

export const grantPoolCredits = async (tx: Queryable, actor: Actor, workspaceId: string, credits: number, reason: string): Promise<Workspace> => {
  if (!Number.isSafeInteger(credits) || credits < 1 || credits > MAX_POOL_GRANT_CREDITS) {
    throw new DomainError("invalid_request", `credits: grant a whole number from 1 to ${MAX_POOL_GRANT_CREDITS.toLocaleString("en-US")}.`);
  }
  const trimmed = reason.trim();
  if (trimmed.length === 0) throw new DomainError("invalid_request", "reason: give a reason for the grant.");
  const granted = await addPoolCredits(tx, actor, workspaceId, credits, "grant", trimmed);
  if (granted) return granted;
  // Nothing changed; this read only words the refusal.
  const workspace = await getWorkspace(tx, workspaceId);
  if (workspace?.personal) throw new DomainError("workspace_rule", "A personal workspace has no pool: its keys keep their own credits.");
  throw new DomainError("not_found", "No such workspace.");
};
