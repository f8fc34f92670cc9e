import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import type { User } from "@/lib/users/repository";
import { directoryEntry, type DirectoryEntry, type PoolRefill } from "@/lib/workspaces/directory";
import { grantPoolCredits, MAX_POOL_GRANT_CREDITS } from "@/lib/workspaces/funding";
import { actorOf } from "./workspaces";

/**
 * The service administrator's console API of workspaces (/api/admin/workspaces/*, Admin →
 * Workspaces): every workspace with its pool, members, refill and limit, and the grant of
 * credits to a team's pool with a reason. The routes are admin-only (consoleRoute role "admin").
 */
export const poolGrantBody = z.strictObject({
  credits: z
    .int({ error: "Credits must be a whole number." })
    .min(1, "Grant at least 1 credit.")
    .max(MAX_POOL_GRANT_CREDITS, "Grant at most 1,000,000,000 credits at once."),
  reason: z
    .string({ error: "Give a reason for the grant." })
    .trim()
    .min(3, "Give a reason for the grant (at least 3 characters).")
    .max(500, "Keep the reason to 500 characters or fewer."),
});

export type AdminWorkspaceView = {
  id: string;
  name: string;
  personal: boolean;
  poolCredits: number;
  poolGranted: number;
  qpsLimit: number | null;
  refill: PoolRefill | null;
  memberCount: number;
  ownerEmails: string[];
  createdAt: string;
};

export const adminWorkspaceView = (entry: DirectoryEntry): AdminWorkspaceView => ({
  id: entry.id,
  name: entry.name,
  personal: entry.personal,
  poolCredits: entry.poolCredits,
  poolGranted: entry.poolGranted,
  qpsLimit: entry.qpsLimit,
  refill: entry.refill,
  memberCount: entry.memberCount,
  ownerEmails: entry.ownerEmails,
  createdAt: entry.createdAt.toISOString(),
});

/** Grants the credits and answers the workspace as the list shows it, read in the same transaction. */
export const grantToPool = (db: Db, user: User, ip: string, workspaceId: string, body: z.infer<typeof poolGrantBody>): Promise<AdminWorkspaceView> =>
  db.transaction(async (tx) => {
    await grantPoolCredits(tx, actorOf(user, ip), workspaceId, body.credits, body.reason);
    const entry = await directoryEntry(tx, workspaceId);
    if (!entry) throw new DomainError("not_found", "No such workspace.");
    return adminWorkspaceView(entry);
  });
