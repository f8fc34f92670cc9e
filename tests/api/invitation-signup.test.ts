import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithPassword } from "@/lib/cli/console-session";
import { consoleClient, type Answer, type Session } from "./console-client";
import { embeddedInRun, randomSecret, type ApiTarget } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * Sign-up through invitations (INVITATION_SIGNUP=on; docs/teams.md "Who makes accounts"): an
 * invited address without an account makes one by setting a password on the link. The service
 * administrator takes back such an account while it never signed in — creating an account for the
 * address makes it theirs, out of the teams the invitations brought it into — and never one that
 * did sign in. (With the setting off, the default, the shared servers refuse: workspace-members.test.ts.)
 */
let target: ApiTarget;

// A server of its own on the embedded database, so it runs in the embedded lane (the setting is no SQL).
beforeAll(async () => {
  if (!embeddedInRun) return;
  target = await startOwnServer({ label: "invitation-signup", env: { INVITATION_SIGNUP: "on" } });
}, 420_000);

afterAll(() => stopOwnServer(target));

describe.runIf(embeddedInRun)("INVITATION_SIGNUP=on", () => {
  const anonymous: Session = { email: "", cookie: "", id: "" };
  const ok = (answer: Answer, status: number) => {
    expect(answer.status, answer.text).toBe(status);
    return answer.body as Record<string, unknown>;
  };
  const uniqueEmail = (label: string) => `${label}-${randomSecret(8).toLowerCase().replace(/[^a-z0-9]/g, "x")}@example.test`;

  /** An analyst's team and an invitation of `email` into it: the link's token. */
  const invitedByAnalyst = async (email: string) => {
    const client = consoleClient(target);
    const service = await client.admin();
    const inviter = await client.analyst(service, "inviter", 0);
    const team = ok(await client.api(inviter, "POST", "/api/workspaces", { name: "Inviter's team" }), 201).workspace as { id: string };
    const invited = ok(await client.api(inviter, "POST", `/api/workspaces/${team.id}/invitations`, { email, role: "viewer" }), 201);
    return { client, service, inviter, teamId: team.id, token: new URL((invited.invitation as { url: string }).url).hash.replace(/^#token=/, "") };
  };

  it("lets an invited address without an account join by setting a password", async () => {
    const email = uniqueEmail("newcomer");
    const { client, token, teamId } = await invitedByAnalyst(email);
    expect(ok(await client.api(anonymous, "POST", "/api/invitations/preview", { token }), 200).invitation).toMatchObject({ hasAccount: false, signUpOpen: true });
    const noPassword = await client.api(anonymous, "POST", "/api/invitations/accept", { token });
    expect(noPassword.status).toBe(400);
    const password = `pw ${randomSecret(16)}`;
    expect(ok(await client.api(anonymous, "POST", "/api/invitations/accept", { token, password, name: "New Comer" }), 200)).toMatchObject({
      accountCreated: true,
      workspace: { id: teamId, role: "viewer" },
    });
    const newcomer = await client.signIn(email, password);
    const workspaces = ok(await client.api(newcomer, "GET", "/api/workspaces"), 200).workspaces as { id: string }[];
    expect(workspaces.map((workspace) => workspace.id)).toContain(teamId);
  });

  it("lets the service administrator reclaim an invitation-made account that never signed in", async () => {
    const email = uniqueEmail("squatted");
    const { client, service, inviter, token, teamId } = await invitedByAnalyst(email);
    const squatterPassword = `pw ${randomSecret(16)}`;
    ok(await client.api(anonymous, "POST", "/api/invitations/accept", { token, password: squatterPassword }), 200);
    const ownPassword = `pw ${randomSecret(16)}`;
    const created = ok(
      await client.api(service, "POST", "/api/admin/users", { email, name: "The Real Person", role: "analyst", password: ownPassword, creditAllowance: 25 }),
      201,
    );
    expect(created).toMatchObject({ email, name: "The Real Person", creditAllowance: 25 });
    // The squatter's password no longer signs in; the administrator's does.
    expect((await signInWithPassword(target.baseUrl, { email, password: squatterPassword }, "/keys")).session).toBeNull();
    const real = await client.signIn(email, ownPassword);
    const workspaces = ok(await client.api(real, "GET", "/api/workspaces"), 200).workspaces as { id: string; personal: boolean }[];
    expect(workspaces.map((workspace) => workspace.personal)).toEqual([true]);
    const members = ok(await client.api(inviter, "GET", `/api/workspaces/${teamId}/members`), 200).members as { email: string }[];
    expect(members.map((member) => member.email)).not.toContain(email);
    const audit = ok(await client.api(service, "GET", "/api/admin/audit"), 200) as { entries: { action: string; details: { email?: string } }[] };
    expect(audit.entries.some((entry) => entry.action === "user.reclaim" && entry.details.email === email)).toBe(true);
  });

  it("never reclaims an account that signed in", async () => {
    const email = uniqueEmail("signed-in");
    const { client, service, token } = await invitedByAnalyst(email);
    const password = `pw ${randomSecret(16)}`;
    ok(await client.api(anonymous, "POST", "/api/invitations/accept", { token, password }), 200);
    await client.signIn(email, password);
    const taken = await client.api(service, "POST", "/api/admin/users", { email, name: "Someone", role: "analyst", password: `pw ${randomSecret(16)}`, creditAllowance: 0 });
    expect(taken.status).toBe(409);
    await client.signIn(email, password);
  });
});
