import type { Db, Queryable } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { visibleKey, type Principal } from "@/lib/keys/manage";
import { getUser } from "@/lib/users/repository";
import { requireWorkspaceRole } from "@/lib/workspaces/access";

/**
 * Whose usage a request may read. Analysts read only keys they own: another user's key is
 * "not found", exactly like the keys API, so ids cannot be probed. Admins may read one key,
 * one user's keys, or everyone's. A workspace's usage (every key made in it, whoever made it) is
 * for its members whose role may read usage — every role — and 404 for anyone else.
 */
export type UsageScope = { kind: "all" } | { kind: "keys"; keyIds: readonly string[] };

export type ScopeRequest = {
  keyId?: string;
  /** Admins: any user's keys. Analysts may only name themselves. */
  userId?: string;
  /** Admins: every key there is. */
  everyone?: boolean;
  /**
   * Every key of this workspace, for a member whose role reads its usage (docs/teams.md); with
   * keyId: that key, when it is the workspace's; with userId: the keys that member made there.
   */
  workspaceId?: string;
};

export type ResolvedScope = {
  scope: UsageScope;
  kind: "key" | "mine" | "user" | "all" | "workspace";
  keyId: string | null;
  userId: string | null;
  workspaceId: string | null;
};

const ownedKeyIds = async (db: Queryable, ownerId: string): Promise<string[]> =>
  (await db.query<{ id: string }>("SELECT id FROM api_keys WHERE owner_id = $1 ORDER BY id", [ownerId])).map((row) => row.id);

/** The workspace's keys, or those one member made there. */
const workspaceKeyIds = async (db: Queryable, workspaceId: string, makerId: string | null): Promise<string[]> =>
  (
    await db.query<{ id: string }>("SELECT id FROM api_keys WHERE workspace_id = $1 AND ($2::text IS NULL OR COALESCE(owner_id, on_behalf_of) = $2) ORDER BY id", [
      workspaceId,
      makerId,
    ])
  ).map((row) => row.id);

const workspaceScope = async (db: Db, principal: Principal, request: ScopeRequest & { workspaceId: string }): Promise<ResolvedScope> => {
  if (request.everyone) throw new DomainError("invalid_request", "A workspace's usage takes no scope=all.");
  const membership = await requireWorkspaceRole(db, principal, request.workspaceId, "usage.read");
  const workspaceId = membership.workspace.id;
  const userId = request.userId ?? null;
  const keyIds = await workspaceKeyIds(db, workspaceId, userId);
  if (request.keyId === undefined) return { scope: { kind: "keys", keyIds }, kind: "workspace", keyId: null, userId, workspaceId };
  // Another workspace's key (or another member's, with userId) is "not found", as a missing one.
  if (!keyIds.includes(request.keyId)) throw new DomainError("not_found", "No such key.");
  return { scope: { kind: "keys", keyIds: [request.keyId] }, kind: "key", keyId: request.keyId, userId, workspaceId };
};

export const resolveScope = async (db: Db, principal: Principal, request: ScopeRequest): Promise<ResolvedScope> => {
  const { workspaceId } = request;
  if (workspaceId !== undefined) return workspaceScope(db, principal, { ...request, workspaceId });
  const isAdmin = principal.role === "admin";
  const { keyId, userId } = request;
  // Checked before any lookup: an analyst learns nothing about other users, not even that they exist.
  if (!isAdmin && ((userId !== undefined && userId !== principal.id) || request.everyone)) {
    throw new DomainError("forbidden", "Only an administrator can see other users' usage.");
  }
  if (keyId !== undefined) {
    const key = await visibleKey(db, principal, keyId);
    if (!key || (userId !== undefined && key.ownerId !== userId)) throw new DomainError("not_found", "No such key.");
    return { scope: { kind: "keys", keyIds: [key.id] }, kind: "key", keyId: key.id, userId: key.ownerId, workspaceId: null };
  }
  if (request.everyone) return { scope: { kind: "all" }, kind: "all", keyId: null, userId: null, workspaceId: null };
  if (userId !== undefined && userId !== principal.id) {
    if (!(await getUser(db, userId))) throw new DomainError("not_found", "No such user.");
    return { scope: { kind: "keys", keyIds: await ownedKeyIds(db, userId) }, kind: "user", keyId: null, userId, workspaceId: null };
  }
  return { scope: { kind: "keys", keyIds: await ownedKeyIds(db, principal.id) }, kind: "mine", keyId: null, userId: principal.id, workspaceId: null };
};

/**
 * The scope as a SQL condition on `column`, its parameter appended to `params`. An empty key
 * list matches nothing (= ANY of an empty array is false).
 */
export const scopeCondition = (scope: UsageScope, params: unknown[], column: string): string => {
  if (scope.kind === "all") return "TRUE";
  params.push([...scope.keyIds]);
  return `${column} = ANY($${params.length}::text[])`;
};
