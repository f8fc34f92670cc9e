import crypto from "node:crypto";
import type { Queryable } from "@/lib/db/client";

/**
 * Server-side state of JWT sessions. Each session carries a random id (`sid`); signing out puts
 * that id on a revocation list until the cookie would have expired anyway, and currentUser()
 * refuses a listed id, so a copied cookie is dead the moment its owner signs out.
 */
export const newSessionId = (): string => crypto.randomBytes(18).toString("base64url");

export const revokeSession = async (db: Queryable, sessionId: string, expiresAt: Date): Promise<void> => {
  // Expired entries can never match a live cookie: each sign-out clears them.
  await db.query("DELETE FROM revoked_sessions WHERE expires_at < now()");
  await db.query(
    "INSERT INTO revoked_sessions (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING",
    [sessionId, expiresAt.toISOString()],
  );
};

export const isSessionRevoked = async (db: Queryable, sessionId: string): Promise<boolean> =>
  (await db.query<{ one: number }>("SELECT 1 AS one FROM revoked_sessions WHERE session_id = $1", [sessionId])).length > 0;
