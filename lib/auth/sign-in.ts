import { RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { createAttemptLimiter, type AttemptLimiter } from "@/lib/ratelimit/limiter";
import type { Queryable } from "@/lib/db/client";
import { decoyHash, verifyPassword } from "@/lib/users/passwords";
import { findUserWithPassword, normaliseEmail, type User } from "@/lib/users/repository";
import { isFamiliarAddress, rememberSignInAddress } from "./sign-in-addresses";

/**
 * Password sign-in with brute-force limits that cannot be turned against the account's owner.
 * Wrong password and unknown account give the same answer after the same work (a decoy hash is
 * verified for unknown ones). Failed attempts are counted three ways, all before any hashing:
 *
 * - per (account, address): 5 failures in 15 minutes, then that address waits out the window
 *   for that account. The owner at another address is not affected.
 * - per address: 100 failures in 15 minutes over all accounts (bounds a spray and its CPU).
 * - per account, from addresses it has not signed in from in the last 30 days: 20 failures in
 *   an hour, then such addresses wait out the hour. Addresses the owner signed in from are
 *   spared, so a guesser anywhere cannot lock the owner out of their usual place.
 *
 * A success clears its (account, address) count and counts against neither its address nor its account.
 * Guessing one account is thus bounded to 20 tries an hour from the whole internet, plus 5 per
 * 15 minutes from each address the owner really uses.
 */
export const INVALID_CREDENTIALS = "Invalid email or password.";

export const SIGN_IN_LIMITS = {
  perAccountAddress: { points: 5, durationS: 15 * 60 },
  perAddress: { points: 100, durationS: 15 * 60 },
  perAccountFromUnfamiliar: { points: 20, durationS: 60 * 60 },
} as const;

export class SignInError extends Error {}

const redisUrl = () => env().REDIS_URL;
const perAccountAddress = createAttemptLimiter({ keyPrefix: "signin-account-ip", ...SIGN_IN_LIMITS.perAccountAddress, redisUrl });
const perAddress = createAttemptLimiter({ keyPrefix: "signin-ip", ...SIGN_IN_LIMITS.perAddress, redisUrl });
const perAccount = createAttemptLimiter({ keyPrefix: "signin-account", ...SIGN_IN_LIMITS.perAccountFromUnfamiliar, redisUrl });

const tooMany = (rejection: RateLimiterRes) => {
  const minutes = Math.max(1, Math.ceil(rejection.msBeforeNext / 60_000));
  return new SignInError(`Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`);
};

const consume = async (limiter: AttemptLimiter, key: string) => {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) throw tooMany(rejection);
    throw rejection;
  }
};

export const signInWithPassword = async (
  db: Queryable,
  input: { email: string; password: string; ip: string },
): Promise<User> => {
  const email = normaliseEmail(input.email).slice(0, 320);
  const address = input.ip || "unknown";
  // The pair key is JSON so that no email/address pair can collide with another.
  const pair = JSON.stringify([email, address]);
  await consume(perAddress, address);
  await consume(perAccountAddress, pair);
  const familiar = await isFamiliarAddress(db, email, address);
  if (!familiar) await consume(perAccount, email);
  const found = await findUserWithPassword(db, email);
  const hash = found?.passwordHash ?? (await decoyHash());
  const passwordOk = input.password.length <= 200 && (await verifyPassword(input.password, hash));
  if (!found || !found.passwordHash || !passwordOk || found.user.status !== "active") {
    throw new SignInError(INVALID_CREDENTIALS);
  }
  await perAccountAddress.delete(pair);
  await perAddress.reward(address);
  if (!familiar) await perAccount.reward(email);
  await rememberSignInAddress(db, found.user.id, address);
  return found.user;
};
