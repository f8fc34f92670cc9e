import { beforeAll, describe, expect, inject, it } from "vitest";
import { PROFILE_0, PROFILE_45, PROFILE_7 } from "@/tests/support/demo-subjects";
import { consoleClient, type Answer, type Session } from "./console-client";
import { delay, randomSecret, type ApiTarget } from "./harness";
import { call, contractMessages as messages, expectError, paths } from "./http";

/**
 * Members of a team workspace (docs/teams.md "Members"): an invitation is a link shown once,
 * for one address, used once, revocable; someone without an account joins once the service administrator made it (INVITATION_SIGNUP=on lets the link make it: invitation-signup.test.ts);
 * a workspace always keeps an owner; removing a member refuses their keys on /v1 at once, keeps
 * their usage, and lets their running batch finish under the workspace.
 */
const targets = inject("apiTargets");

const tokenOf = (url: string): string => new URL(url).hash.replace(/^#token=/, "");
const uniqueEmail = (label: string) => `${label}-${randomSecret(8).toLowerCase().replace(/[^a-z0-9]/g, "x")}@example.test`;

describe.each(targets)("$kind server: members of a team workspace", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;
  const anonymous: Session = { email: "", cookie: "", id: "" };
  let service: Session;
  let owner: Session;
  let other: Session;
  let teamId = "";

  const ok = (answer: Answer, status: number) => {
    expect(answer.status, answer.text).toBe(status);
    return answer.body as Record<string, unknown>;
  };
  const errorOf = (answer: Answer) => (answer.body as { error: { code: string; message: string } }).error;
  const invite = async (email: string, role: string) =>
    (ok(await api(owner, "POST", `/api/workspaces/${teamId}/invitations`, { email, role }), 201).invitation as { id: string; url: string; expiresAt: string });
  const membersOf = async () => ok(await api(owner, "GET", `/api/workspaces/${teamId}/members`), 200).members as { userId: string; email: string; role: string }[];

  beforeAll(async () => {
    service = await client.admin();
    owner = await client.analyst(service, "team-owner", 0);
    other = await client.analyst(service, "someone-else", 0);
    teamId = (ok(await api(owner, "POST", "/api/workspaces", { name: "Field team" }), 201).workspace as { id: string }).id;
    ok(await api(service, "POST", `/api/workspaces/${teamId}/credits`, { credits: 100 }), 200);
  });

  describe("invitations", () => {
    it("shows the link once: the pending list names the address and role, never the token", async () => {
      const email = uniqueEmail("shown-once");
      const invitation = await invite(email, "analyst");
      expect(invitation.url).toMatch(new RegExp(`^${target.publicUrl}/invitations/accept#token=inv_[A-Za-z0-9_-]{43}$`));
      const days = (Date.parse(invitation.expiresAt) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.99);
      expect(days).toBeLessThanOrEqual(7);
      const pending = await api(owner, "GET", `/api/workspaces/${teamId}/invitations`);
      expect((pending.body as { invitations: { id: string; email: string; role: string }[] }).invitations).toContainEqual(
        expect.objectContaining({ id: invitation.id, email, role: "analyst" }),
      );
      expect(pending.text).not.toContain(tokenOf(invitation.url));
      const preview = ok(await api(anonymous, "POST", "/api/invitations/preview", { token: tokenOf(invitation.url) }), 200);
      expect(preview.invitation).toEqual({ workspaceName: "Field team", email, role: "analyst", expiresAt: invitation.expiresAt, hasAccount: false, signUpOpen: false });
    });

    it("makes no account for an address without one: the service administrator makes it, then the link joins, once", async () => {
      const email = uniqueEmail("newcomer");
      const token = tokenOf((await invite(email, "viewer")).url);
      const preview = ok(await api(anonymous, "POST", "/api/invitations/preview", { token }), 200);
      expect(preview.invitation).toMatchObject({ hasAccount: false, signUpOpen: false });
      const password = `pw ${randomSecret(16)}`;
      for (const attempt of [{ token }, { token, password, name: "New Comer" }]) {
        const refused = await api(anonymous, "POST", "/api/invitations/accept", attempt);
        expect(refused.status, refused.text).toBe(403);
        expect(errorOf(refused).message).toBe(
          `There is no account for ${email} yet, and on this service accounts are made by its administrator: ask them to create one, then open this link again to join.`,
        );
      }
      // Nothing was made: the administrator's account for the address is not refused as taken.
      ok(await api(service, "POST", "/api/admin/users", { email, name: "New Comer", role: "analyst", password, creditAllowance: 0 }), 201);
      const newcomer = await client.signIn(email, password);
      ok(await api(newcomer, "POST", "/api/invitations/accept", { token }), 200);
      const workspaces = ok(await api(newcomer, "GET", "/api/workspaces"), 200).workspaces as { id: string; personal: boolean; role: string }[];
      expect(workspaces.map(({ personal, role }) => ({ personal, role }))).toEqual([
        { personal: true, role: "owner" },
        { personal: false, role: "viewer" },
      ]);
      // Used: the same link again, by anyone, is not valid.
      for (const session of [anonymous, newcomer]) {
        const again = await api(session, "POST", "/api/invitations/accept", { token, password });
        expect(again.status).toBe(404);
        expect(errorOf(again).code).toBe("invitation_invalid");
      }
      expect((await membersOf()).filter((member) => member.email === email)).toHaveLength(1);
    });

    it("is for its address only: another signed-in user is refused and the link stays good", async () => {
      const invitee = await client.analyst(service, "invitee", 0);
      const token = tokenOf((await invite(invitee.email, "analyst")).url);
      const wrong = await api(other, "POST", "/api/invitations/accept", { token });
      expect(wrong.status).toBe(403);
      expect(errorOf(wrong).message).toContain(invitee.email);
      // A visitor cannot take over an address that has an account: they sign in first.
      const visitor = await api(anonymous, "POST", "/api/invitations/accept", { token, password: `pw ${randomSecret(16)}` });
      expect(visitor.status).toBe(401);
      ok(await api(invitee, "POST", "/api/invitations/accept", { token }), 200);
    });

    it("stops working once revoked, and a revoked one cannot be revoked again", async () => {
      const invitation = await invite(uniqueEmail("revoked"), "analyst");
      ok(await api(owner, "DELETE", `/api/workspaces/${teamId}/invitations/${invitation.id}`), 200);
      expect((await api(owner, "DELETE", `/api/workspaces/${teamId}/invitations/${invitation.id}`)).status).toBe(404);
      const accepted = await api(anonymous, "POST", "/api/invitations/accept", { token: tokenOf(invitation.url), password: `pw ${randomSecret(16)}` });
      expect(accepted.status).toBe(404);
      expect(JSON.stringify((await api(owner, "GET", `/api/workspaces/${teamId}/invitations`)).body)).not.toContain(invitation.id);
    });

    it("refuses a made-up or malformed token with the same answer", async () => {
      for (const token of [`inv_${"A".repeat(43)}`, "nonsense"]) {
        const answer = await api(anonymous, "POST", "/api/invitations/accept", { token, password: `pw ${randomSecret(16)}` });
        expect(answer.status).toBe(404);
        expect(errorOf(answer).code).toBe("invitation_invalid");
      }
    });

    it("cannot invite into a personal workspace", async () => {
      const personal = (ok(await api(owner, "GET", "/api/workspaces"), 200).workspaces as { id: string; personal: boolean }[]).find((entry) => entry.personal);
      const answer = await api(owner, "POST", `/api/workspaces/${personal?.id ?? ""}/invitations`, { email: uniqueEmail("p"), role: "viewer" });
      expect(answer.status).toBe(409);
    });
  });

  describe("owners", () => {
    it("keeps at least one: the last owner can be neither removed nor demoted, a second one makes both possible", async () => {
      const removeSelf = await api(owner, "DELETE", `/api/workspaces/${teamId}/members/${owner.id}`);
      expect(removeSelf.status).toBe(409);
      expect(errorOf(removeSelf).message).toContain("at least one owner");
      expect((await api(owner, "PATCH", `/api/workspaces/${teamId}/members/${owner.id}`, { role: "admin" })).status).toBe(409);
      const second = await client.analyst(service, "second-owner", 0);
      ok(await api(second, "POST", "/api/invitations/accept", { token: tokenOf((await invite(second.email, "admin")).url) }), 200);
      // An admin cannot touch an owner, nor make one.
      expect((await api(second, "PATCH", `/api/workspaces/${teamId}/members/${owner.id}`, { role: "viewer" })).status).toBe(403);
      expect((await api(second, "PATCH", `/api/workspaces/${teamId}/members/${second.id}`, { role: "owner" })).status).toBe(403);
      ok(await api(owner, "PATCH", `/api/workspaces/${teamId}/members/${second.id}`, { role: "owner" }), 200);
      ok(await api(second, "PATCH", `/api/workspaces/${teamId}/members/${owner.id}`, { role: "admin" }), 200);
      expect((await api(second, "DELETE", `/api/workspaces/${teamId}/members/${second.id}`)).status).toBe(409);
      ok(await api(second, "PATCH", `/api/workspaces/${teamId}/members/${owner.id}`, { role: "owner" }), 200);
      const roles = (await membersOf()).filter((member) => [owner.id, second.id].includes(member.userId)).map((member) => member.role);
      expect(roles).toEqual(["owner", "owner"]);
    });
  });

  describe("removing a member", () => {
    it("refuses their keys on /v1 at once, keeps their usage, and lets their running batch finish on the pool", async () => {
      const member = await client.analyst(service, "leaver", 0);
      ok(await api(member, "POST", "/api/invitations/accept", { token: tokenOf((await invite(member.email, "analyst")).url) }), 200);
      const created = ok(await api(member, "POST", "/api/keys", { name: "script", workspaceId: teamId }), 201) as { key: { id: string; poolId: string }; token: string };
      expect(created.key.poolId).toBe(teamId);
      const key = { authorization: `Bearer ${created.token}` };
      const lookup = () => call(target, paths.publications, { auth: key, query: { urn: PROFILE_7 } });
      const before = await lookup();
      expect(before.status, before.text).toBe(200);
      // A slow console key of theirs in the team, so the batch is still running when they are removed.
      ok(await api(member, "POST", `/api/workspaces/${teamId}/switch`), 200);
      ok(await api(member, "POST", "/api/keys", { name: "slow console", workspaceId: teamId, qpsLimit: 1, useForConsole: true }), 201);
      const batch = ok(
        await api(member, "POST", "/api/batches", { operation: "get_user_publications", inputs: [PROFILE_45, PROFILE_7, PROFILE_0], pages: "all", maxPages: 5, maxCredits: 20 }),
        201,
      ) as { id: string };

      const removed = ok(await api(owner, "DELETE", `/api/workspaces/${teamId}/members/${member.id}`), 200) as { revokedKeyIds: string[]; handedOverBatchIds: string[] };
      expect(removed.revokedKeyIds).toContain(created.key.id);
      expect(removed.handedOverBatchIds).toEqual([batch.id]);
      expectError(await lookup(), 401, messages.keyInvalid);

      // Their usage stays, attributed to their key.
      const usage = ok(await api(service, "GET", `/api/usage/events?keyId=${created.key.id}`), 200) as { events: { requestId: string }[] };
      expect(usage.events.map((event) => event.requestId)).toContain(before.headers.get("x-request-id") ?? (before.body as { requestId: string }).requestId);
      // They are out: the team is not theirs to see, and the console is back in their personal workspace.
      expect((await api(member, "GET", `/api/workspaces/${teamId}`)).status).toBe(404);
      expect((ok(await api(member, "GET", "/api/workspaces"), 200) as { activeWorkspaceId: string }).activeWorkspaceId).toBe(`wsp_${member.id}`);

      const done = await client.batchWhenDone<{ status: string; done: number; total: number; failed: number; creditsSpent: number; stopReason: string | null }>(
        service,
        batch.id,
      );
      expect(done).toMatchObject({ status: "done", done: 3, total: 3, failed: 0, stopReason: null });
      expect(done?.creditsSpent).toBeGreaterThan(0);
    });

    it("keeps handed-over work within the member's budget, attributed to them, and the owner sees, pauses, resumes and cancels it", async () => {
      const member = await client.analyst(service, "budgeted-leaver", 0);
      ok(await api(member, "POST", "/api/invitations/accept", { token: tokenOf((await invite(member.email, "analyst")).url) }), 200);
      ok(await api(owner, "PATCH", `/api/workspaces/${teamId}/members/${member.id}`, { monthlyBudgetCredits: 3 }), 200);
      ok(await api(member, "POST", `/api/workspaces/${teamId}/switch`), 200);
      ok(await api(member, "POST", "/api/keys", { name: "slow console", workspaceId: teamId, qpsLimit: 1, useForConsole: true }), 201);
      // 5 + 1 pages of one credit each: beyond the budget of 3.
      const batch = ok(
        await api(member, "POST", "/api/batches", { operation: "get_user_publications", inputs: [PROFILE_45, PROFILE_7], options: { pages: "all", maxPages: 5 }, maxCredits: 40 }),
        201,
      ) as { id: string };
      ok(await api(owner, "DELETE", `/api/workspaces/${teamId}/members/${member.id}`), 200);

      // The owner sees the handed-over batch, and controls it, in the team's workspace.
      ok(await api(owner, "POST", `/api/workspaces/${teamId}/switch`), 200);
      const seen = ok(await api(owner, "GET", `/api/batches/${batch.id}`), 200) as { id: string };
      expect(seen.id).toBe(batch.id);
      expect((ok(await api(owner, "GET", "/api/batches"), 200).batches as { id: string }[]).map((entry) => entry.id)).toContain(batch.id);
      const paused = await api(owner, "POST", `/api/batches/${batch.id}/pause`, {});
      expect([200, 409]).toContain(paused.status);
      if (paused.status === 200) ok(await api(owner, "POST", `/api/batches/${batch.id}/resume`, {}), 200);
      // Another member below admin does not.
      const analyst = await client.analyst(service, "bystander", 0);
      ok(await api(analyst, "POST", "/api/invitations/accept", { token: tokenOf((await invite(analyst.email, "analyst")).url) }), 200);
      ok(await api(analyst, "POST", `/api/workspaces/${teamId}/switch`), 200);
      expect((await api(analyst, "GET", `/api/batches/${batch.id}`)).status).toBe(404);

      let ended: { status: string; creditsSpent: number } | undefined;
      for (let attempt = 0; attempt < 150 && !["stopped", "done", "canceled"].includes(ended?.status ?? ""); attempt += 1) {
        await delay(200);
        ended = ok(await api(service, "GET", `/api/batches/${batch.id}`), 200) as { status: string; creditsSpent: number };
      }
      // Within the budget of 3, whatever the member spent before the removal.
      expect(ended?.creditsSpent).toBeLessThanOrEqual(3);
      expect(ended?.status, JSON.stringify(ended)).toBe("stopped");
      // The spend is the member's in the team's usage by member, not "no member".
      const byMember = ok(await api(owner, "GET", `/api/usage/summary?workspaceId=${teamId}&groupBy=member`), 200) as {
        groups: { member: { id: string; credits: number }[] };
      };
      expect(byMember.groups.member.find((group) => group.id === member.id)?.credits).toBe(ended?.creditsSpent);
      expect(byMember.groups.member.find((group) => group.id === "none")?.credits ?? 0).toBe(0);
      const cancel = await api(owner, "POST", `/api/batches/${batch.id}/cancel`, {});
      expect(cancel.status, cancel.text).toBe(200);
      ok(await api(owner, "POST", `/api/workspaces/wsp_${owner.id}/switch`), 200);
    });
  });

  describe("deleting and transferring", () => {
    it("hands ownership to a member in one step, and deletes a team workspace: keys refused at once, members out, personal ones kept", async () => {
      const team = (ok(await api(owner, "POST", "/api/workspaces", { name: "Short-lived" }), 201).workspace as { id: string }).id;
      ok(await api(service, "POST", `/api/workspaces/${team}/credits`, { credits: 50 }), 200);
      const heir = await client.analyst(service, "heir", 0);
      ok(await api(heir, "POST", "/api/invitations/accept", { token: tokenOf((ok(await api(owner, "POST", `/api/workspaces/${team}/invitations`, { email: heir.email, role: "admin" }), 201).invitation as { url: string }).url) }), 200);
      // An admin may neither delete nor transfer.
      expect((await api(heir, "DELETE", `/api/workspaces/${team}`)).status).toBe(403);
      expect((await api(heir, "POST", `/api/workspaces/${team}/transfer`, { userId: heir.id })).status).toBe(403);
      ok(await api(owner, "POST", `/api/workspaces/${team}/transfer`, { userId: heir.id }), 200);
      const roles = Object.fromEntries(
        (ok(await api(heir, "GET", `/api/workspaces/${team}/members`), 200).members as { userId: string; role: string }[]).map((member) => [member.userId, member.role]),
      );
      expect(roles).toEqual({ [heir.id]: "owner", [owner.id]: "admin" });

      const created = ok(await api(heir, "POST", "/api/keys", { name: "doomed", workspaceId: team }), 201) as { token: string };
      const lookup = () => call(target, paths.publications, { auth: { authorization: `Bearer ${created.token}` }, query: { urn: PROFILE_7 } });
      expect((await lookup()).status).toBe(200);
      expect((await api(owner, "DELETE", `/api/workspaces/${team}`)).status).toBe(403);
      const deleted = ok(await api(heir, "DELETE", `/api/workspaces/${team}`), 200) as { revokedKeyIds: string[] };
      expect(deleted.revokedKeyIds.length).toBeGreaterThanOrEqual(1);
      expectError(await lookup(), 401, messages.keyInvalid);
      for (const session of [heir, owner, service]) expect((await api(session, "GET", `/api/workspaces/${team}`)).status).toBe(404);
      const left = ok(await api(heir, "GET", "/api/workspaces"), 200).workspaces as { id: string }[];
      expect(left.map((workspace) => workspace.id)).toEqual([`wsp_${heir.id}`]);
      // A personal workspace cannot be deleted.
      expect((await api(heir, "DELETE", `/api/workspaces/wsp_${heir.id}`)).status).toBe(409);
    });
  });

  describe("the pool's settings", () => {
    it("charges 300 parallel lookups over 6 keys of a pool holding 100 credits exactly 100, and /v1/account says the pool is what is left", async () => {
      const team = (ok(await api(owner, "POST", "/api/workspaces", { name: "Exact pool" }), 201).workspace as { id: string }).id;
      ok(await api(service, "POST", `/api/workspaces/${team}/credits`, { credits: 100 }), 200);
      const tokens: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        tokens.push((ok(await api(owner, "POST", "/api/keys", { name: `pool ${index}`, workspaceId: team, qpsLimit: 1000 }), 201) as { token: string }).token);
      }
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, index) => call(target, paths.publications, { auth: { authorization: `Bearer ${tokens[index % 6]}` }, query: { urn: PROFILE_7 } })),
      );
      const charged = answers.reduce((sum, answer) => sum + Number(answer.headers.get("x-credits-charged") ?? 0), 0);
      expect(charged).toBe(100);
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(100);
      for (const answer of answers.filter((one) => one.status !== 200)) expectError(answer, 402, messages.quota);
      const account = await call(target, "/v1/account", { auth: { authorization: `Bearer ${tokens[0]}` } });
      expect((account.body as { data: { key: unknown } }).data.key).toMatchObject({
        credits_remaining: 0,
        pool: { workspace_id: team, credits_remaining: 0, credits_granted: 100 },
        credits_spendable: 0,
        limited_by: "pool",
      });
    });

    it("applies a shared per-second limit to every key at once, and lets only the service administrator set the pool's refill", async () => {
      const team = (ok(await api(owner, "POST", "/api/workspaces", { name: "Shared limit" }), 201).workspace as { id: string }).id;
      ok(await api(service, "POST", `/api/workspaces/${team}/credits`, { credits: 1000 }), 200);
      const tokens: string[] = [];
      for (let index = 0; index < 2; index += 1) {
        tokens.push((ok(await api(owner, "POST", "/api/keys", { name: `limited ${index}`, workspaceId: team, qpsLimit: 1000 }), 201) as { token: string }).token);
      }
      const burst = () =>
        Promise.all(Array.from({ length: 8 }, (_, index) => call(target, "/v1/account", { auth: { authorization: `Bearer ${tokens[index % 2]}` } })));
      // Used once (and cached) before the limit is set: the change must reach the cached keys at once.
      expect((await burst()).every((answer) => answer.status === 200)).toBe(true);
      ok(await api(owner, "PATCH", `/api/workspaces/${team}`, { qpsLimit: 3 }), 200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const limited = await burst();
      expect(limited.filter((answer) => answer.status === 200)).toHaveLength(3);
      expect(limited.filter((answer) => answer.status === 429)).toHaveLength(5);

      const refill = { credits: 500, interval: "daily", mode: "top_up_to" };
      const refused = await api(owner, "PATCH", `/api/workspaces/${team}`, { refill });
      expect(refused.status).toBe(403);
      // A pooled key has no balance of its own to refill: no credits can be minted through it.
      const keys = ok(await api(owner, "GET", `/api/keys?workspaceId=${team}`), 200) as { keys: { id: string }[] };
      const keyRefill = await api(owner, "PATCH", `/api/keys/${keys.keys[0]!.id}`, { refill });
      expect(keyRefill.status).toBe(422);
      expect(errorOf(keyRefill).message).toContain("no refill of its own");
      ok(await api(service, "PATCH", `/api/workspaces/${team}`, { refill }), 200);
      const audit = ok(await api(owner, "GET", `/api/workspaces/${team}/audit`), 200) as { entries: { action: string; details: Record<string, unknown> }[] };
      expect(audit.entries.find((entry) => entry.action === "workspace.settings" && "refill" in entry.details)?.details).toMatchObject({
        refill: { credits: 500, interval: "daily", mode: "top_up_to" },
      });
    });
  });
});
