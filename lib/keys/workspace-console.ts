import type { Db } from "@/lib/db/client";
import { recordAudit } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import { membershipMay, requireWorkspaceRole, type Membership } from "@/lib/workspaces/access";
import { setActiveWorkspace } from "@/lib/workspaces/active";
import { keyChanged } from "./events";
import { CONSOLE_KEY_NAME } from "./label";
import { sealToken, type Principal } from "./manage";
import { createKey } from "./repository";

/**
 * Switching the console's workspace (docs/teams.md "The active workspace"): the workspace becomes
 * the active one, and the console key becomes the user's console key there. In a team workspace
 * where the user may run lookups and has none, one is made ("Console", drawing from the pool, its
 * token sealed server-side as any console key's); a role that may not run lookups (a viewer) gets
 * no console key, so the console's lookups are refused there. In the personal workspace the key
 * chosen there before comes back (none: the user chooses one on the Keys page, as before).
 */
const CONSOLE_KEY_QPS = 5;

export type Switched = { membership: Membership; consoleKeyId: string | null };

export const switchWorkspace = (db: Db, secret: string, principal: Principal, workspaceId: string): Promise<Switched> =>
  db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, principal, workspaceId, "workspace.read");
    // The service administrator sees every workspace but works only in those they belong to.
    if (membership.role === null) throw new DomainError("forbidden", "Only a member can work in this workspace: join it first.");
    // The user's row first: two switches at once are decided one after the other.
    await tx.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [principal.id]);
    let consoleKeyId: string | null = null;
    if (membershipMay(membership, "lookups.run")) {
      const existing = await tx.query<{ key_id: string }>(
        `SELECT c.key_id FROM console_tokens c JOIN usable_keys k ON k.id = c.key_id JOIN api_keys a ON a.id = c.key_id
         WHERE c.user_id = $1 AND a.workspace_id = $2
         ORDER BY (a.id = (SELECT console_key_id FROM users WHERE id = $1)) DESC, a.created_at DESC, a.id LIMIT 1`,
        [principal.id, workspaceId],
      );
      consoleKeyId = existing[0]?.key_id ?? null;
      if (consoleKeyId === null && !membership.workspace.personal) {
        const issued = await createKey(tx, secret, {
          name: CONSOLE_KEY_NAME,
          ownerId: principal.id,
          credits: 0,
          qpsLimit: CONSOLE_KEY_QPS,
          expiresAt: null,
          workspaceId,
        });
        consoleKeyId = issued.key.id;
        await tx.query("INSERT INTO console_tokens (key_id, user_id, token_encrypted) VALUES ($1, $2, $3)", [
          consoleKeyId,
          principal.id,
          sealToken(consoleKeyId, issued.token),
        ]);
        await recordAudit(
          tx,
          { id: principal.id, email: principal.email, ip: principal.ip },
          "key.create",
          { type: "key", id: consoleKeyId },
          { name: CONSOLE_KEY_NAME, credits: 0, qpsLimit: CONSOLE_KEY_QPS, console: true },
          workspaceId,
        );
      }
    }
    await tx.query("UPDATE users SET console_key_id = $2 WHERE id = $1", [principal.id, consoleKeyId]);
    await setActiveWorkspace(tx, principal.id, workspaceId);
    return { membership, consoleKeyId };
  });

/** Forget cached credentials of keys a workspace change revoked, suspended or restored, on every instance. */
export const keysChanged = (keyIds: readonly string[]): void => {
  for (const id of keyIds) keyChanged(id);
};
