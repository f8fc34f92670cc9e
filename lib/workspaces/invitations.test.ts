import { describe, expect, it } from "vitest";
import { openForSuite, testDatabases } from "@/tests/support/databases";
import { newTeam, newUser } from "@/tests/support/usage";
import { isDomainError } from "@/lib/errors";
import { membershipOf } from "./access";
import { acceptInvitation, createInvitation, INVITATION_LIFETIME_MS, pendingInvitation } from "./invitations";
import { changeMember, removeMember } from "./members";

/**
 * Invitations and owners (docs/teams.md "Members"): a link is good for 7 days and one use, its
 * token is stored only as a hash; two owners demoting each other at once leave one owner.
 */
describe.each(await testDatabases())("workspace invitations and owners on $name", (database) => {
  const db = openForSuite(database);
  const user = async (label: string) => newUser(db(), `${label}-${crypto.randomUUID()}@example.test`);
  const actor = (who: { id: string; email: string }) => ({ id: who.id, email: who.email, ip: "127.0.0.1" });
  const codeOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return "none";
    } catch (error) {
      if (isDomainError(error)) return error.code;
      throw error;
    }
  };

  it("keeps only the token's hash, and the link expires after 7 days", async () => {
    const owner = await user("owner");
    const invitee = await user("invitee");
    const team = await newTeam(db(), owner.id, 0);
    const membership = await membershipOf(db(), { id: owner.id, role: "analyst" }, team);
    if (!membership) throw new Error("the owner is not a member");
    const { invitation, token } = await db().transaction((tx) => createInvitation(tx, actor(owner), membership, { email: invitee.email, role: "analyst" }));
    expect(invitation.expiresAt.getTime() - invitation.createdAt.getTime()).toBe(INVITATION_LIFETIME_MS);
    const stored = await db().query<{ row: string }>("SELECT row_to_json(i)::text AS row FROM workspace_invitations i WHERE id = $1", [invitation.id]);
    expect(stored[0]?.row).not.toContain(token);
    expect(stored[0]?.row).not.toContain(token.slice(4));
    // A second before expiry it is good; at expiry it is not.
    await db().query("UPDATE workspace_invitations SET expires_at = now() + interval '1 minute' WHERE id = $1", [invitation.id]);
    expect((await pendingInvitation(db(), token)).invitation.id).toBe(invitation.id);
    await db().query("UPDATE workspace_invitations SET expires_at = now() - interval '1 second' WHERE id = $1", [invitation.id]);
    expect(await codeOf(db().transaction((tx) => acceptInvitation(tx, actor(invitee), token)))).toBe("invitation_invalid");
    expect(await membershipOf(db(), { id: invitee.id, role: "analyst" }, team)).toBeNull();
  });

  it("is accepted once when two acceptances race", async () => {
    const owner = await user("owner");
    const invitee = await user("invitee");
    const team = await newTeam(db(), owner.id, 0);
    const membership = await membershipOf(db(), { id: owner.id, role: "analyst" }, team);
    if (!membership) throw new Error("the owner is not a member");
    const { token } = await db().transaction((tx) => createInvitation(tx, actor(owner), membership, { email: invitee.email, role: "viewer" }));
    const codes = await Promise.all([0, 1].map(() => codeOf(db().transaction((tx) => acceptInvitation(tx, actor(invitee), token)))));
    expect(codes.filter((code) => code === "none")).toHaveLength(1);
  });

  it("leaves one owner when two owners demote or remove each other at once", async () => {
    const first = await user("first");
    const second = await user("second");
    const team = await newTeam(db(), first.id, 0);
    await db().query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [team, second.id]);
    const as = async (who: { id: string }) => {
      const membership = await membershipOf(db(), { id: who.id, role: "analyst" }, team);
      if (!membership) throw new Error("not a member");
      return membership;
    };
    const [byFirst, bySecond] = [await as(first), await as(second)];
    const codes = await Promise.all([
      codeOf(db().transaction((tx) => changeMember(tx, actor(first), byFirst, second.id, { role: "admin" }))),
      codeOf(db().transaction((tx) => removeMember(tx, actor(second), bySecond, first.id))),
    ]);
    expect(codes.sort()).toEqual(["last_owner", "none"]);
    const owners = await db().query<{ n: number | string }>("SELECT count(*) AS n FROM workspace_members WHERE workspace_id = $1 AND role = 'owner'", [team]);
    expect(Number(owners[0]?.n)).toBe(1);
  });
});
