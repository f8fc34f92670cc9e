import { notFound, redirect } from "next/navigation";
import type { User } from "@/lib/users/repository";
import { currentUser } from "./session";

/** The signed-in user of a console page; anyone else is sent to sign in and brought back to `path`. */
export const requireUser = async (path: string): Promise<User> => {
  const user = await currentUser();
  if (!user) redirect(`/signin?callbackUrl=${encodeURIComponent(path)}`);
  return user;
};

/** The signed-in admin of an admin page. */
export const requireAdmin = async (path: string): Promise<User> => {
  const user = await requireUser(path);
  // Analysts learn nothing about an admin page, not even that it exists.
  if (user.role !== "admin") notFound();
  return user;
};
