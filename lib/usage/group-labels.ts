import type { Queryable } from "@/lib/db/client";
import { keyLabelSql } from "@/lib/keys/label";

/**
 * How a summary's key and member groups are named for people: a key by its name (a console key
 * with its maker, lib/keys/label.ts), a member (the user who made the keys) by e-mail address.
 * Ids stay the groups' ids.
 */
export const NO_MEMBER = "none";

export const keyNames = async (db: Queryable, ids: string[]): Promise<Map<string, string>> => {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string }>(
    `SELECT k.id, ${keyLabelSql("k.name", "u.email")} AS name FROM api_keys k LEFT JOIN users u ON u.id = k.owner_id WHERE k.id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
};

export type MemberName = { name: string; email: string };

export const memberNames = async (db: Queryable, ids: string[]): Promise<Map<string, MemberName>> => {
  const userIds = ids.filter((id) => id !== NO_MEMBER);
  if (userIds.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string; email: string }>("SELECT id, name, email FROM users WHERE id = ANY($1::text[])", [userIds]);
  return new Map(rows.map((row) => [row.id, { name: row.name, email: row.email }]));
};

/** A member by e-mail address (unique, unlike a name; the group's `member` has both); operator keys have no member. */
export const memberLabel = (id: string, member: MemberName | undefined): string => {
  if (id === NO_MEMBER) return "No member (operator keys)";
  return member?.email ?? id;
};
