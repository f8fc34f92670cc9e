import type { Queryable } from "@/lib/db/client";
import { personalWorkspaceId } from "./repository";

/**
 * The workspace the console works in (users.active_workspace_id, docs/teams.md "The active
 * workspace"): its lookups and batches run there. Null in the column means the personal one; a
 * workspace the user has left is never active (removal clears it, and this reads only one they
 * are still a member of).
 */
export const activeWorkspaceId = async (db: Queryable, userId: string): Promise<string> => {
  const rows = await db.query<{ id: string | null }>(
    `SELECT m.workspace_id AS id FROM users u
     LEFT JOIN workspace_members m ON m.workspace_id = u.active_workspace_id AND m.user_id = u.id
     WHERE u.id = $1`,
    [userId],
  );
  return rows[0]?.id ?? personalWorkspaceId(userId);
};

/** Makes the workspace the active one (the personal one is stored as null). */
export const setActiveWorkspace = async (db: Queryable, userId: string, workspaceId: string): Promise<void> => {
  await db.query("UPDATE users SET active_workspace_id = CASE WHEN $2 = 'wsp_' || id THEN NULL ELSE $2 END WHERE id = $1", [userId, workspaceId]);
};
