import crypto from "node:crypto";
import { promisify } from "node:util";

/**
 * Passwords are hashed with scrypt (memory-hard): N=2^15, r=8, p=1 — 32 MiB per hash.
 * Stored as `scrypt$N$r$p$salt$hash` so parameters can rise later without breaking old hashes.
 */
const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

export const hashPassword = async (password: string): Promise<string> => {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
  return ["scrypt", N, R, P, salt.toString("base64url"), hash.toString("base64url")].join("$");
};

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scrypt(password, Buffer.from(salt, "base64url"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
};

/** A hash of nothing anyone knows: verified against when the user does not exist, so that
 * "no such user" takes as long as "wrong password". */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => {
  decoy ??= hashPassword(crypto.randomBytes(24).toString("base64url"));
  return decoy;
};

/** A random password for bootstrap accounts: 24 characters, ~143 bits. */
export const randomPassword = (): string => crypto.randomBytes(18).toString("base64url");
