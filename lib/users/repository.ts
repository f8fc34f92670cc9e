import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";

/** Console accounts. Passwords arrive here already hashed; no HTTP in here. */
export type Role = "admin" | "analyst";
export type UserStatus = "active" | "disabled";

export type User = {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: UserStatus;
  creditAllowance: number;
  sessionVersion: number;
  consoleKeyId: string | null;
  createdAt: Date;
};

type UserRow = {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: UserStatus;
  credit_allowance: number | string;
  session_version: number;
  console_key_id: string | null;
  created_at: Date | string;
};

const COLUMNS = "id, email, name, role, status, credit_allowance, session_version, console_key_id, created_at";

const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.status,
  creditAllowance: Number(row.credit_allowance),
  sessionVersion: row.session_version,
  consoleKeyId: row.console_key_id,
  createdAt: new Date(row.created_at),
});

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export const newUserId = (): string => `usr_${crypto.randomBytes(9).toString("base64url")}`;

export type CreateUserInput = {
  email: string;
  name: string;
  role: Role;
  passwordHash: string | null;
  creditAllowance: number;
};

export class EmailTakenError extends Error {
  constructor() {
    super("A user with this email already exists");
  }
}

export const createUser = async (db: Queryable, input: CreateUserInput & { createdVia?: "admin" | "invitation" }): Promise<User> => {
  const rows = await db.query<UserRow>(
    `INSERT INTO users (id, email, name, role, password_hash, credit_allowance, created_via) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (email) DO NOTHING RETURNING ${COLUMNS}`,
    [newUserId(), normaliseEmail(input.email), input.name, input.role, input.passwordHash, input.creditAllowance, input.createdVia ?? "admin"],
  );
  const row = rows[0];
  if (!row) throw new EmailTakenError();
  return toUser(row);
};

/**
 * The service administrator takes back an account that someone made by accepting an invitation
 * and that never signed in (no sign-in address was ever recorded): it becomes the account the
 * administrator asked for — their name, role, password and allowance, every session ended.
 * Null when the address has no such account (an account that signed in is never taken over).
 */
export const reclaimInvitedUser = async (db: Queryable, input: CreateUserInput): Promise<User | null> => {
  const rows = await db.query<UserRow>(
    `UPDATE users u SET name = $2, role = $3, password_hash = $4, credit_allowance = $5, created_via = 'admin',
       session_version = session_version + 1
     WHERE u.email = $1 AND u.created_via = 'invitation'
       AND NOT EXISTS (SELECT 1 FROM sign_in_addresses a WHERE a.user_id = u.id)
     RETURNING ${COLUMNS.split(", ").map((column) => `u.${column}`).join(", ")}`,
    [normaliseEmail(input.email), input.name, input.role, input.passwordHash, input.creditAllowance],
  );
  const row = rows[0];
  return row ? toUser(row) : null;
};

export const getUser = async (db: Queryable, id: string): Promise<User | null> => {
  const rows = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0] ? toUser(rows[0]) : null;
};

export const findUserByEmail = async (db: Queryable, email: string): Promise<User | null> => {
  const rows = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE email = $1`, [normaliseEmail(email)]);
  return rows[0] ? toUser(rows[0]) : null;
};

export const findUserWithPassword = async (
  db: Queryable,
  email: string,
): Promise<{ user: User; passwordHash: string | null } | null> => {
  const rows = await db.query<UserRow & { password_hash: string | null }>(
    `SELECT ${COLUMNS}, password_hash FROM users WHERE email = $1`,
    [normaliseEmail(email)],
  );
  const row = rows[0];
  return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
};

export const listUsers = async (db: Queryable): Promise<User[]> =>
  (await db.query<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY created_at, email`)).map(toUser);

export const countUsers = async (db: Queryable): Promise<number> =>
  Number((await db.query<{ count: number | string }>("SELECT count(*) AS count FROM users"))[0]?.count ?? 0);

/** Disabling also ends every session of the user (their session version moves on). */
export const setUserStatus = async (db: Queryable, id: string, status: UserStatus): Promise<User | null> => {
  const rows = await db.query<UserRow>(
    `UPDATE users SET status = $2, session_version = session_version + CASE WHEN $2 = 'disabled' THEN 1 ELSE 0 END,
       updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, status],
  );
  return rows[0] ? toUser(rows[0]) : null;
};

/** A new password ends every session of the user. */
export const setPassword = async (db: Queryable, id: string, passwordHash: string): Promise<User | null> => {
  const rows = await db.query<UserRow>(
    `UPDATE users SET password_hash = $2, session_version = session_version + 1, updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, passwordHash],
  );
  return rows[0] ? toUser(rows[0]) : null;
};

/** "Sign out everywhere": sessions carry the version they were issued with. */
export const endAllSessions = async (db: Queryable, id: string): Promise<void> => {
  await db.query("UPDATE users SET session_version = session_version + 1, updated_at = now() WHERE id = $1", [id]);
};

export const setCreditAllowance = async (db: Queryable, id: string, creditAllowance: number): Promise<User | null> => {
  const rows = await db.query<UserRow>(
    `UPDATE users SET credit_allowance = $2, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, creditAllowance],
  );
  return rows[0] ? toUser(rows[0]) : null;
};

/**
 * Takes credits out of a user's allowance in one statement; false when the allowance is too
 * small. Admins grant from no allowance.
 */
export const spendAllowance = async (db: Queryable, id: string, credits: number): Promise<boolean> => {
  const rows = await db.query<{ id: string }>(
    `UPDATE users SET credit_allowance = CASE WHEN role = 'admin' THEN credit_allowance ELSE credit_allowance - $2 END,
       updated_at = now()
     WHERE id = $1 AND (role = 'admin' OR credit_allowance >= $2) AND status = 'active'
     RETURNING id`,
    [id, credits],
  );
  return rows.length === 1;
};

/**
 * Whether the user's allowance holds `credits` (administrators': always), with their row locked
 * until the transaction ends, so nothing spends it meanwhile; null when there is no active user.
 * Nothing is taken: for a charge that comes later (each period's refill), which takes it then.
 */
export const allowanceCovers = async (
  tx: Queryable,
  id: string,
  credits: number,
): Promise<{ covers: boolean; creditAllowance: number } | null> => {
  const rows = await tx.query<{ covers: boolean; credit_allowance: number | string }>(
    `SELECT role = 'admin' OR credit_allowance >= $2 AS covers, credit_allowance FROM users
     WHERE id = $1 AND status = 'active' FOR UPDATE`,
    [id, credits],
  );
  const row = rows[0];
  return row ? { covers: row.covers, creditAllowance: Number(row.credit_allowance) } : null;
};

/**
 * Creates the admin or updates an existing account to admin with this password (bootstrap, at
 * every start). Sessions survive: the same configured password is not a reason to sign out.
 */
export const upsertAdmin = async (db: Queryable, email: string, passwordHash: string): Promise<User> => {
  const rows = await db.query<UserRow>(
    `INSERT INTO users (id, email, name, role, password_hash) VALUES ($1, $2, 'Administrator', 'admin', $3)
     ON CONFLICT (email) DO UPDATE SET role = 'admin', status = 'active', password_hash = EXCLUDED.password_hash,
       updated_at = now()
     RETURNING ${COLUMNS}`,
    [newUserId(), normaliseEmail(email), passwordHash],
  );
  const row = rows[0];
  if (!row) throw new Error("admin upsert returned no row");
  return toUser(row);
};
