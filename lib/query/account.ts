import { queryOptions } from "@tanstack/react-query";
import type { PasswordChangeInput, UserCreateInput, UserPatchInput } from "@/lib/users/schemas";
import type { AccountUser, Me } from "@/lib/users/views";
import { fetchJson, jsonRequest } from "./fetch-json";

/** Query option factories and mutations for the signed-in account and the user administration. */
export const accountKeys = {
  me: ["me"] as const,
  users: ["admin", "users"] as const,
};

export const meQuery = () =>
  queryOptions({
    queryKey: accountKeys.me,
    queryFn: () => fetchJson<Me>("/api/me"),
  });

export const usersQuery = () =>
  queryOptions({
    queryKey: accountKeys.users,
    queryFn: async () => (await fetchJson<{ users: AccountUser[] }>("/api/admin/users")).users,
  });

export const changePassword = (input: PasswordChangeInput) =>
  fetchJson<{ ok: true }>("/api/me/password", jsonRequest("POST", input));

export const endAllMySessions = () => fetchJson<{ ok: true }>("/api/me/sessions", jsonRequest("DELETE"));

export const createUser = (input: UserCreateInput) => fetchJson<AccountUser>("/api/admin/users", jsonRequest("POST", input));

export const updateUser = (id: string, patch: UserPatchInput) =>
  fetchJson<AccountUser>(`/api/admin/users/${encodeURIComponent(id)}`, jsonRequest("PATCH", patch));

/**
 * The email of next-auth's session cookie, or null when signed out. Only a hint for the site
 * header (the cookie may outlive a disabled account); console pages check the database.
 */
export const signedInEmail = async (): Promise<string | null> => {
  const session = await fetchJson<{ user?: { email?: string | null } }>("/api/auth/session");
  return session?.user?.email ?? null;
};
