import { getServerSession } from "next-auth";
import { getDb } from "@/lib/db/client";
import { getUser, type User } from "@/lib/users/repository";
import { authOptions } from "./options";

/**
 * The signed-in user of this request, or null. The session's user must still exist, be active
 * and hold the session version the session was issued under.
 */
export const currentUser = async (): Promise<User | null> => {
  const session = (await getServerSession(authOptions())) as { uid?: string | null; sv?: number } | null;
  if (!session?.uid) return null;
  const user = await getUser(await getDb(), session.uid);
  if (!user || user.status !== "active" || user.sessionVersion !== session.sv) return null;
  return user;
};
