import { RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { createAttemptLimiter } from "@/lib/ratelimit/limiter";
import { recordAudit, type Actor } from "@/lib/audit/log";
import type { Db, Queryable } from "@/lib/db/client";
import type { DomainErrorCode } from "@/lib/errors";
import { hashPassword, verifyPassword } from "./passwords";
import {
  createUser,
  EmailTakenError,
  endAllSessions,
  findUserWithPassword,
  getUser,
  reclaimInvitedUser,
  setCreditAllowance,
  setPassword,
  setUserStatus,
  type User,
} from "./repository";
import type { PasswordChangeInput, UserCreateInput, UserPatchInput } from "./schemas";

/**
 * Account changes as the console makes them: one transaction per request with its audit rows,
 * so a request either changes everything it asked for or nothing. Problems are values with a
 * code; the console API maps the codes to statuses. No HTTP in here.
 */
export type AccountProblemCode = Extract<
  DomainErrorCode,
  "not_found" | "email_taken" | "wrong_password" | "no_password" | "self_disable" | "too_many_attempts"
>;

export type AccountResult<T> = { ok: true; value: T } | { ok: false; code: AccountProblemCode; message: string };

const ok = <T>(value: T): AccountResult<T> => ({ ok: true, value });
const problem = <T>(code: AccountProblemCode, message: string): AccountResult<T> => ({ ok: false, code, message });

/** A session holder may not guess their own password through this form faster than at sign-in. */
const passwordChecks = createAttemptLimiter({
  keyPrefix: "password-change",
  points: 5,
  durationS: 15 * 60,
  redisUrl: () => env().REDIS_URL,
});

const minutesUntil = (rejection: RateLimiterRes) => Math.max(1, Math.ceil(rejection.msBeforeNext / 60_000));

export const changeOwnPassword = async (
  db: Db,
  actor: Actor & { id: string },
  input: PasswordChangeInput,
): Promise<AccountResult<User>> => {
  try {
    await passwordChecks.consume(actor.id);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const minutes = minutesUntil(rejection);
    return problem("too_many_attempts", `Too many wrong passwords. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`);
  }
  const found = await findUserWithPassword(db, actor.email);
  if (!found || found.user.id !== actor.id) return problem("not_found", "Your account no longer exists.");
  if (!found.passwordHash) {
    return problem("no_password", "This account signs in with single sign-on and has no password to change.");
  }
  if (!(await verifyPassword(input.currentPassword, found.passwordHash))) {
    return problem("wrong_password", "The current password is not correct.");
  }
  await passwordChecks.delete(actor.id);
  const passwordHash = await hashPassword(input.newPassword);
  const updated = await db.transaction(async (tx) => {
    const user = await setPassword(tx, actor.id, passwordHash);
    if (user) await recordAudit(tx, actor, "user.password", { type: "user", id: actor.id }, { email: user.email, self: true });
    return user;
  });
  return updated ? ok(updated) : problem("not_found", "Your account no longer exists.");
};

/** "Sign out everywhere": every session of the user, this one included, stops working. */
export const signOutEverywhere = (db: Db, actor: Actor & { id: string }): Promise<void> =>
  db.transaction(async (tx) => {
    await endAllSessions(tx, actor.id);
    await recordAudit(tx, actor, "user.sessions", { type: "user", id: actor.id }, { email: actor.email });
  });

/**
 * What an account made through an invitation leaves elsewhere when the service administrator
 * reclaims it: the edge passes the workspaces' step (its memberships of teams end).
 */
export type AccountCreateDeps = { onReclaimed: (tx: Queryable, actor: Actor, user: User) => Promise<void> };

export const createAccount = async (db: Db, actor: Actor, input: UserCreateInput, deps?: AccountCreateDeps): Promise<AccountResult<User>> => {
  const passwordHash = await hashPassword(input.password);
  const fields = { email: input.email, name: input.name, role: input.role, passwordHash, creditAllowance: input.creditAllowance };
  // An account someone made through an invitation and never signed in to is the administrator's to take back.
  const reclaimed = await db.transaction(async (tx) => {
    const user = await reclaimInvitedUser(tx, fields);
    if (!user) return null;
    await deps?.onReclaimed(tx, actor, user);
    await recordAudit(tx, actor, "user.reclaim", { type: "user", id: user.id }, { email: user.email, role: user.role, creditAllowance: user.creditAllowance });
    return user;
  });
  if (reclaimed) return ok(reclaimed);
  try {
    const user = await db.transaction(async (tx) => {
      const created = await createUser(tx, {
        email: input.email,
        name: input.name,
        role: input.role,
        passwordHash,
        creditAllowance: input.creditAllowance,
      });
      await recordAudit(tx, actor, "user.create", { type: "user", id: created.id }, {
        email: created.email,
        role: created.role,
        creditAllowance: created.creditAllowance,
      });
      return created;
    });
    return ok(user);
  } catch (error) {
    if (error instanceof EmailTakenError) return problem("email_taken", "A user with this email already exists.");
    throw error;
  }
};

/**
 * An administrator's change to another account: status, password reset and credit allowance,
 * all or nothing. Disabling ends the user's sessions (their session version moves on) and,
 * after the commit, drops every cached key so the user's keys stop working at once.
 */
export type AccountChangeDeps = {
  /** After a status change commits: every cached key may be stale (the server passes lib/keys/events.ts keyChanged(null)). */
  keysChanged: () => void;
};

export const updateAccount = async (
  db: Db,
  actor: Actor & { id: string },
  id: string,
  patch: UserPatchInput,
  deps: AccountChangeDeps,
): Promise<AccountResult<User>> => {
  if (patch.status === "disabled" && id === actor.id) {
    return problem("self_disable", "You cannot disable your own account. Ask another administrator.");
  }
  const passwordHash = patch.password === undefined ? undefined : await hashPassword(patch.password);
  const outcome = await db.transaction(async (tx): Promise<{ user: User; statusChanged: boolean } | null> => {
    const before = await getUser(tx, id);
    if (!before) return null;
    let user = before;
    const target = { type: "user", id } as const;
    const statusChanged = patch.status !== undefined && patch.status !== before.status;
    if (patch.status !== undefined && statusChanged) {
      user = (await setUserStatus(tx, id, patch.status)) ?? user;
      await recordAudit(tx, actor, patch.status === "disabled" ? "user.disable" : "user.enable", target, { email: user.email });
    }
    if (passwordHash !== undefined) {
      user = (await setPassword(tx, id, passwordHash)) ?? user;
      await recordAudit(tx, actor, "user.password", target, { email: user.email, reset: true });
    }
    if (patch.creditAllowance !== undefined && patch.creditAllowance !== user.creditAllowance) {
      const from = user.creditAllowance;
      user = (await setCreditAllowance(tx, id, patch.creditAllowance)) ?? user;
      await recordAudit(tx, actor, "user.allowance", target, { email: user.email, from, to: user.creditAllowance });
    }
    return { user, statusChanged };
  });
  if (!outcome) return problem("not_found", "No user with this id.");
  if (outcome.statusChanged) deps.keysChanged();
  return ok(outcome.user);
};
