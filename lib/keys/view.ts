import type { Db } from "@/lib/db/client";
import type { AuditEntry } from "@/lib/audit/log";
import { thresholdsOfKeys, type AlertThresholdView } from "@/lib/alerts/thresholds";
import { getUser, type User } from "@/lib/users/repository";
import { consoleCapableKeyIds, type Principal } from "./manage";
import type { KeyRefill } from "./refill";
import type { ApiKey, KeyStatus } from "./repository";
import { roleMay, type WorkspaceRole } from "@/lib/workspaces/roles";

/**
 * What the console JSON API sends to a browser about keys and their audit trail. A view never
 * carries a token or a hash: the only token ever sent is the one `issueKey`/`rollVisibleKey`
 * return, next to the view, once.
 */
export type ApiKeyView = {
  id: string;
  name: string;
  ownerId: string | null;
  /** "…last6" of the current token, enough to recognise it. */
  tokenHint: string;
  status: KeyStatus;
  creditsRemaining: number;
  creditsGranted: number;
  qpsLimit: number;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  expiresAt: string | null;
  /** The key the viewer's console uses for its own lookups. */
  isConsoleKey: boolean;
  /** Its token is sealed server-side, so "use for console" needs no token pasted. */
  consoleCapable: boolean;
  /** Operation ids it may call; null: all, those added later included. */
  operations: string[] | null;
  /** Addresses and CIDR ranges it may be used from; null: any. */
  allowedAddresses: string[] | null;
  refill: KeyRefill | null;
  /** Whose credit allowance pays each refill; null: granted by an administrator (or the CLI). */
  refillPayerId: string | null;
  /** A refill the allowance could not pay stopped: when, and the credits it would have added. */
  refillStopped: { at: string; credits: number } | null;
  /** null: no refill, or a stopped one. */
  nextRefillAt: string | null;
  alertThresholds: AlertThresholdView[];
  /** The workspace it belongs to; null: an operator's key from the key CLI. */
  workspaceId: string | null;
  /** The team workspace whose pool it draws from (creditsRemaining is the pool's); null: its own balance. */
  poolId: string | null;
  /** Its own cap besides the pool (docs/teams.md): per calendar month or in all; a day's cap is its budget's. */
  spendCap: { credits: number; period: "month" | "total" } | null;
  /** Who made it (null: no one — the key CLI, or a removed member's batches' key). */
  maker: { id: string; name: string; email: string } | null;
  /**
   * Set while the key is suspended: its maker's role in its workspace may not run lookups (a member
   * demoted to viewer). It answers as a revoked key would until a promotion restores it (docs/teams.md).
   */
  suspended: { role: WorkspaceRole } | null;
};

export type AuditEntryView = Omit<AuditEntry, "createdAt"> & { createdAt: string };

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** The viewer's console choice, read fresh (a mutation in the same request may have changed it). */
export type ConsoleMarks = { consoleKeyId: string | null; capableKeyIds: ReadonlySet<string> };

export const consoleMarks = async (db: Db, userId: string): Promise<ConsoleMarks> => {
  const [user, capable] = await Promise.all([getUser(db, userId), consoleCapableKeyIds(db, userId)]);
  return { consoleKeyId: user?.consoleKeyId ?? null, capableKeyIds: new Set(capable) };
};

export type KeyMaker = { id: string; name: string; email: string };

export const toKeyView = (
  key: ApiKey,
  marks: ConsoleMarks,
  alertThresholds: AlertThresholdView[] = [],
  maker: KeyMaker | null = null,
  makerRole: WorkspaceRole | null = null,
): ApiKeyView => ({
  id: key.id,
  name: key.name,
  ownerId: key.ownerId,
  tokenHint: key.tokenHint,
  status: key.status,
  creditsRemaining: key.creditsRemaining,
  creditsGranted: key.creditsGranted,
  qpsLimit: key.qpsLimit,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: iso(key.lastUsedAt),
  revokedAt: iso(key.revokedAt),
  expiresAt: iso(key.expiresAt),
  isConsoleKey: key.status === "active" && key.id === marks.consoleKeyId,
  consoleCapable: key.status === "active" && marks.capableKeyIds.has(key.id),
  operations: key.operations,
  allowedAddresses: key.allowedAddresses,
  refill: key.refill,
  refillPayerId: key.refillPayerId,
  refillStopped: key.refillStopped === null ? null : { at: key.refillStopped.at.toISOString(), credits: key.refillStopped.credits },
  nextRefillAt: iso(key.nextRefillAt),
  alertThresholds,
  workspaceId: key.workspaceId,
  poolId: key.poolId,
  spendCap: key.spendCap,
  maker,
  suspended: key.status === "active" && makerRole !== null && !roleMay(makerRole, "lookups.run") ? { role: makerRole } : null,
});

const makersOf = async (db: Db, keys: readonly ApiKey[]): Promise<Map<string, KeyMaker>> => {
  const ids = [...new Set(keys.flatMap((key) => (key.ownerId === null ? [] : [key.ownerId])))];
  if (ids.length === 0) return new Map();
  const rows = await db.query<KeyMaker>("SELECT id, name, email FROM users WHERE id = ANY($1::text[])", [ids]);
  return new Map(rows.map((row) => [row.id, row]));
};

/** Each key's maker's role in the key's workspace (absent: no maker, or not a member there). */
const makerRolesOf = async (db: Db, keys: readonly ApiKey[]): Promise<Map<string, WorkspaceRole>> => {
  const ids = keys.flatMap((key) => (key.ownerId === null || key.workspaceId === null ? [] : [key.id]));
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; role: WorkspaceRole }>(
    `SELECT k.id, m.role FROM api_keys k JOIN workspace_members m ON m.workspace_id = k.workspace_id AND m.user_id = k.owner_id
     WHERE k.id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.role]));
};

/** Views of keys as this viewer sees them (console marks are the viewer's own). */
export const keyViews = async (db: Db, viewerId: string, keys: ApiKey[]): Promise<ApiKeyView[]> => {
  const [marks, thresholds, makers, makerRoles] = await Promise.all([
    consoleMarks(db, viewerId),
    thresholdsOfKeys(db, keys.map((key) => key.id)),
    makersOf(db, keys),
    makerRolesOf(db, keys),
  ]);
  return keys.map((key) =>
    toKeyView(
      key,
      marks,
      thresholds.get(key.id) ?? [],
      key.ownerId === null ? null : (makers.get(key.ownerId) ?? null),
      makerRoles.get(key.id) ?? null,
    ),
  );
};

export const keyView = async (db: Db, viewerId: string, key: ApiKey): Promise<ApiKeyView> => {
  const [view] = await keyViews(db, viewerId, [key]);
  if (!view) throw new Error("a key without a view");
  return view;
};

export const toAuditView = (entry: AuditEntry): AuditEntryView => ({ ...entry, createdAt: entry.createdAt.toISOString() });

/** The signed-in user acting from this request's address. */
export const principalOf = (user: User, ip: string): Principal => ({ id: user.id, email: user.email, role: user.role, ip });

