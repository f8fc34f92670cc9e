import crypto from "node:crypto";
import { SignJWT, jwtVerify } from "jose";

/**
 * API keys are JWTs (HS256, signed with AUTH_SECRET) carrying the key id in `kid` and 128 bits
 * of randomness in `jti`. The database keeps only SHA-256 of the whole token: the signature
 * proves we issued it, the stored hash proves it is the key's current token.
 */
export const issueToken = async (keyId: string, secret: string): Promise<string> =>
  new SignJWT({ kid: keyId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setJti(crypto.randomBytes(16).toString("base64url"))
    .setIssuedAt()
    .sign(new TextEncoder().encode(secret));

export const hashToken = (token: string): Buffer => crypto.createHash("sha256").update(token).digest();

export const sameHash = (left: Buffer, right: Buffer): boolean =>
  left.length === right.length && crypto.timingSafeEqual(left, right);

/** A short, non-secret hint of a token to tell keys apart in lists (its last characters). */
export const tokenHint = (token: string): string => `…${token.slice(-6)}`;

const JWT_SHAPE = /^[A-Za-z0-9_-]{10,200}\.[A-Za-z0-9_-]{10,400}\.[A-Za-z0-9_-]{20,100}$/;

/**
 * The key id a token was signed for, or null when it is not a token of ours. Verification is
 * deterministic, so results are memoised per token (bounded) to keep HMAC off the hot path.
 */
export const createTokenVerifier = (secret: string, maxEntries = 20_000) => {
  const key = new TextEncoder().encode(secret);
  const verified = new Map<string, string | null>();
  return async (token: string): Promise<string | null> => {
    const known = verified.get(token);
    if (known !== undefined) return known;
    let keyId: string | null = null;
    if (JWT_SHAPE.test(token)) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] });
        keyId = typeof payload.kid === "string" && payload.kid.length <= 64 ? payload.kid : null;
      } catch {
        keyId = null;
      }
    }
    if (verified.size >= maxEntries) verified.clear();
    verified.set(token, keyId);
    return keyId;
  };
};
