import type { Queryable } from "@/lib/db/client";
import type { AccountData } from "@/lib/usage/account-schema";
import { keyAccount } from "@/lib/usage/account";
import { getWorkspace } from "@/lib/workspaces/repository";
import { roleMay, type WorkspaceRole } from "@/lib/workspaces/roles";

/**
 * Which spending limit stopped a console lookup, and who can lift it, as the console says it
 * (docs/teams.md "The pool"). The figures are /v1/account's (lib/usage/account.ts: the least of
 * the key's balance or pool, its daily cap, its own cap and the member's budget, and which one
 * that is); this module only words them. A /v1 client reads the same `limited_by` itself.
 */
type AccountKey = AccountData["key"];
export type SpendingLimit = AccountKey["limited_by"];

export type LimitNotice = { by: SpendingLimit; message: string; creditsSpendable: number };

const count = new Intl.NumberFormat("en-US");
const credits = (amount: number) => `${count.format(amount)} ${amount === 1 ? "credit" : "credits"}`;

/** Who may raise a key's caps: in a team, its owners and admins (keys.manage); in a personal workspace, its owner. */
const keyManagers = (team: string | null, role: WorkspaceRole | null): string => {
  if (team === null) return "you can raise it on the Keys page";
  if (role !== null && roleMay(role, "keys.manage")) return "you can raise it on the Keys page";
  return `an owner or admin of ${team} can raise it`;
};

/** The sentence for the limit that leaves the least; `team` is the pool's workspace (null: a key with its own credits). */
export const limitSentence = (account: AccountKey, team: string | null, role: WorkspaceRole | null): string => {
  const teamName = team ?? "this workspace";
  switch (account.limited_by) {
    case "budget": {
      const budget = account.budget;
      const figures = budget ? ` (${count.format(budget.credits_spent_this_month)} of ${credits(budget.credits)})` : "";
      const lifter =
        role !== null && roleMay(role, "members.manage")
          ? "you can raise it on the Members page"
          : `an owner or admin of ${teamName} can raise it`;
      return `Your monthly budget in ${teamName} is spent${figures} — ${lifter}, or it starts again on the 1st at 00:00 UTC.`;
    }
    case "pool":
      return `The pool of ${teamName} is empty — an owner or admin of ${teamName} can move credits into it from their allowance, or the service administrator can fund it.`;
    case "daily_cap":
      return `This key's daily cap${account.daily_credit_cap === null ? "" : ` of ${credits(account.daily_credit_cap)}`} is reached — it resets at 00:00 UTC, or ${keyManagers(team, role)}.`;
    case "cap": {
      const cap = account.cap;
      if (cap?.period === "total") return `This key's cap of ${credits(cap.credits)} in all is reached — ${keyManagers(team, role)}.`;
      return `This key's monthly cap${cap ? ` of ${credits(cap.credits)}` : ""} is reached — it resets on the 1st at 00:00 UTC, or ${keyManagers(team, role)}.`;
    }
    case "credits":
      return "This key is out of credits — add credits to it or choose another console key on the Keys page.";
  }
};

/** The limit that leaves the console key the least, worded; null when the key is no longer usable. */
export const limitNotice = async (db: Queryable, keyId: string, role: WorkspaceRole | null): Promise<LimitNotice | null> => {
  const account = await keyAccount(db, keyId);
  if (!account) return null;
  const team = account.pool ? ((await getWorkspace(db, account.pool.workspace_id))?.name ?? null) : null;
  return { by: account.limited_by, message: limitSentence(account, team, role), creditsSpendable: account.credits_spendable };
};

/** A role that may not run lookups in the workspace (a viewer), as the lookup route and the meter say it. */
export const cannotRunLookups = (role: WorkspaceRole): string =>
  `Your role in this workspace (${role}) cannot run lookups. Switch to a workspace where you may.`;
