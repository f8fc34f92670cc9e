import crypto from "node:crypto";

/**
 * Follower cursors are opaque to clients but carry the user and the position of the next page,
 * signed (HMAC-SHA256, truncated to 128 bits) so that a tampered or foreign cursor is refused.
 * The same position always yields the same cursor (stable across requests and restarts).
 */
export type FollowerCursor = { userId: string; offset: number };

export type CursorCodec = {
  encode(cursor: FollowerCursor): string;
  decode(value: string): FollowerCursor | null;
};

export const createCursorCodec = (key: Buffer): CursorCodec => {
  const sign = (body: string) =>
    crypto.createHmac("sha256", key).update(body).digest().subarray(0, 16).toString("base64url");
  return {
    encode: ({ userId, offset }) => {
      const body = Buffer.from(`${userId}:${offset}`, "utf8").toString("base64url");
      return `${body}.${sign(body)}`;
    },
    decode: (value) => {
      const [body, signature, ...rest] = value.split(".");
      if (!body || !signature || rest.length > 0) return null;
      // Compare the text, not decoded bytes: base64url ignores the spare bits of the last
      // character, so two different strings can decode to the same signature.
      const expected = Buffer.from(sign(body));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
      const match = /^(\d{1,20}):(\d{1,9})$/.exec(Buffer.from(body, "base64url").toString("utf8"));
      if (!match?.[1] || !match[2]) return null;
      return { userId: match[1], offset: Number(match[2]) };
    },
  };
};
