import { getServerSession } from "next-auth";
import { getDb } from "@/lib/database";
import { getUser, type User } from "@/lib/users/repository";
import { authOptions } from "./options";
import { isSessionRevoked } from "./session-store";

/**
 * The signed-in user of this request, or null. The session's user must still exist, be active
 * and hold the session version the session was issued under, and the session must not have
 * been signed out. A session without an id predates server-side sign-out and is refused.
 */
export const currentUser = async (): Promise<User | null> => {
  const session = (await getServerSession(authOptions())) as { uid?: string | null; sv?: number; sid?: string | null } | null;
  if (!session?.uid || !session.sid) return null;
  const db = await getDb();
  const user = await getUser(db, session.uid);
  if (!user || user.status !== "active" || user.sessionVersion !== session.sv) return null;
  if (await isSessionRevoked(db, session.sid)) return null;
  return user;
};
