import type { Role, User, UserStatus } from "./repository";

/**
 * What the console API says about accounts: never a password hash, a session version or a
 * token. Plain JSON values, so server pages can hand them to browser components as-is.
 */
export type Me = {
  id: string;
  email: string;
  name: string;
  role: Role;
  creditAllowance: number;
  consoleKeyId: string | null;
};

export type AccountUser = Me & {
  status: UserStatus;
  /** ISO 8601 */
  createdAt: string;
};

export const toMe = (user: User): Me => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  creditAllowance: user.creditAllowance,
  consoleKeyId: user.consoleKeyId,
});

export const toAccountUser = (user: User): AccountUser => ({
  ...toMe(user),
  status: user.status,
  createdAt: user.createdAt.toISOString(),
});
