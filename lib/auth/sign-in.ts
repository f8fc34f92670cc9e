import { RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { createAttemptLimiter, type AttemptLimiter } from "@/lib/ratelimit/limiter";
import type { Queryable } from "@/lib/db/client";
import { decoyHash, verifyPassword } from "@/lib/users/passwords";
import { findUserWithPassword, normaliseEmail, type User } from "@/lib/users/repository";

/**
 * Password sign-in with brute-force limits per account and per IP. Wrong password and unknown
 * account give the same answer after the same work (a decoy hash is verified for unknown ones).
 */
export const INVALID_CREDENTIALS = "Invalid email or password.";

export class SignInError extends Error {}

const redisUrl = () => env().REDIS_URL;
const perAccount = createAttemptLimiter({ keyPrefix: "signin-account", points: 5, durationS: 15 * 60, redisUrl });
const perIp = createAttemptLimiter({ keyPrefix: "signin-ip", points: 100, durationS: 15 * 60, redisUrl });

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
  await consume(perIp, input.ip || "unknown");
  await consume(perAccount, email);
  const found = await findUserWithPassword(db, email);
  const hash = found?.passwordHash ?? (await decoyHash());
  const passwordOk = input.password.length <= 200 && (await verifyPassword(input.password, hash));
  if (!found || !found.passwordHash || !passwordOk || found.user.status !== "active") {
    throw new SignInError(INVALID_CREDENTIALS);
  }
  await perAccount.delete(email);
  return found.user;
};
