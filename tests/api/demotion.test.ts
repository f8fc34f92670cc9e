import { setTimeout as delay } from "node:timers/promises";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { demoFixtures } from "@/lib/demo/fixtures";
import { PROFILE_7 } from "@/tests/support/demo-subjects";
import { consoleClient, type Answer, type Session } from "./console-client";
import { randomSecret, type ApiTarget } from "./harness";

/**
 * A member spends a team's pool only while their role in the key's workspace runs lookups
 * (docs/teams.md "Roles"): a demotion to viewer suspends the keys they made there — /v1 lookups,
 * /v1 batches, MCP, the console and batch items already queued all stop, charged nothing — and a
 * promotion restores them. The viewer still sees their suspended keys and may revoke them. A
 * console key is chosen only where its maker may run lookups, and the console spends only with
 * the active workspace's key.
 */
const targets = inject("apiTargets");

type KeyView = { id: string; status: string; suspended: { role: string } | null; isConsoleKey: boolean };

describe.each(targets)("$kind server: a member demoted to viewer", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;
  let service: Session;
  let owner: Session;
  let member: Session;
  let teamId = "";
  let apiKey = { id: "", token: "" };
  let slowKey = { id: "", token: "" };

  const ok = (answer: Answer, status: number) => {
    expect(answer.status, answer.text).toBe(status);
    return answer.body as Record<string, unknown>;
  };
  const v1 = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { code: number; message: string; data: unknown } };
  };
  const lookup = (token: string) => v1(token, "GET", `/v1/jobsite/get_user_publications?urn=${encodeURIComponent(PROFILE_7)}`);
  const mcpLookup = async (token: string) => {
    const response = await fetch(`${target.baseUrl}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_user_publications", arguments: { urn: PROFILE_7 } } }),
    });
    return { status: response.status, text: await response.text() };
  };
  const consoleLookup = (session: Session) => api(session, "GET", `/api/console/lookup/get_user_publications?urn=${encodeURIComponent(PROFILE_7)}`);
  const poolCredits = async () => (ok(await api(owner, "GET", `/api/workspaces/${teamId}`), 200).workspace as { poolCredits: number }).poolCredits;
  const setRole = async (role: string) => ok(await api(owner, "PATCH", `/api/workspaces/${teamId}/members/${member.id}`, { role }), 200);
  const memberKeys = async () => ok(await api(member, "GET", `/api/keys?workspaceId=${teamId}`), 200).keys as KeyView[];
  const teamKey = async (name: string, qpsLimit: number) => {
    const body = ok(await api(member, "POST", "/api/keys", { name, workspaceId: teamId, qpsLimit }), 201) as { key: { id: string }; token: string };
    return { id: body.key.id, token: body.token };
  };

  beforeAll(async () => {
    service = await client.admin();
    owner = await client.analyst(service, "demoting-owner", 0);
    member = await client.analyst(service, "demoted-member", 0);
    teamId = (ok(await api(owner, "POST", "/api/workspaces", { name: `Demotions ${randomSecret(4)}` }), 201).workspace as { id: string }).id;
    ok(await api(service, "POST", `/api/workspaces/${teamId}/credits`, { credits: 1000 }), 200);
    const invited = ok(await api(owner, "POST", `/api/workspaces/${teamId}/invitations`, { email: member.email, role: "analyst" }), 201);
    const token = new URL((invited.invitation as { url: string }).url).hash.replace(/^#token=/, "");
    ok(await api(member, "POST", "/api/invitations/accept", { token }), 200);
    apiKey = await teamKey("scripts", 50);
    slowKey = await teamKey("slow batches", 1);
    // The member works in the team: switching makes their console key there.
    ok(await api(member, "POST", `/api/workspaces/${teamId}/switch`), 200);
  });

  it("spends through every door as an analyst", async () => {
    expect((await lookup(apiKey.token)).status).toBe(200);
    expect((await mcpLookup(apiKey.token)).status).toBe(200);
    expect((await consoleLookup(member)).status).toBe(200);
    expect(await poolCredits()).toBe(1000 - 3);
  });

  it("as a viewer, spends through none: /v1, /v1/batches, MCP, the console and queued batch items, charged nothing", async () => {
    const created = await v1(slowKey.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: demoFixtures.eventIds.slice(0, 30) });
    expect(created.status).toBe(202);
    const batchId = (created.body.data as { id: string }).id;
    // Wait until the batch is charging, one lookup a second.
    const before = await poolCredits();
    for (let waited = 0; (await poolCredits()) === before && waited < 60; waited += 1) await delay(500);
    expect(await poolCredits()).toBeLessThan(before);

    await setRole("viewer");
    // A lookup the runner had in flight at the demotion may still settle; after that, nothing.
    await delay(1500);
    const afterDemotion = await poolCredits();
    expect(await lookup(apiKey.token)).toMatchObject({ status: 401, body: { code: 401, message: "apiKey is invalid", data: null } });
    expect((await v1(apiKey.token, "POST", "/v1/batches", { operation: "event_details_id", inputs: demoFixtures.eventIds.slice(0, 2) })).status).toBe(401);
    expect((await mcpLookup(apiKey.token)).status).toBe(401);
    const refused = await consoleLookup(member);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("(viewer) cannot run lookups");
    // The batch's 28 or so remaining inputs, one a second, would have spent 4 credits each by now.
    await delay(3000);
    expect(await poolCredits()).toBe(afterDemotion);
    expect(batchId).toMatch(/\S/);
  });

  it("shows the viewer their suspended keys, and lets them revoke one", async () => {
    const keys = await memberKeys();
    const scripts = keys.find((key) => key.id === apiKey.id);
    expect(scripts).toMatchObject({ status: "active", suspended: { role: "viewer" } });
    // The owner sees the suspension too.
    const ownersView = ok(await api(owner, "GET", `/api/keys?workspaceId=${teamId}`), 200).keys as KeyView[];
    expect(ownersView.find((key) => key.id === slowKey.id)?.suspended).toEqual({ role: "viewer" });
    const revoked = ok(await api(member, "DELETE", `/api/keys/${slowKey.id}`), 200) as { key: KeyView };
    expect(revoked.key.status).toBe("revoked");
  });

  it("cannot choose a team key as the console key, nor spend with one from another workspace", async () => {
    const chosen = await api(member, "POST", `/api/keys/${apiKey.id}/console`, {});
    expect(chosen.status).toBe(403);
    expect(chosen.text).toContain("cannot run lookups");
    // In their personal workspace, the team's console key does not spend: there is none there.
    const before = await poolCredits();
    ok(await api(member, "POST", `/api/workspaces/wsp_${member.id}/switch`), 200);
    const personal = await consoleLookup(member);
    expect(personal.status, personal.text).toBe(409);
    expect(personal.text).toContain("Choose a console key");
    expect(await poolCredits()).toBe(before);
    ok(await api(member, "POST", `/api/workspaces/${teamId}/switch`), 200);
  });

  it("is restored by a promotion: the suspended key answers again, at once", async () => {
    const before = await poolCredits();
    await setRole("analyst");
    expect((await lookup(apiKey.token)).status).toBe(200);
    expect((await memberKeys()).find((key) => key.id === apiKey.id)?.suspended).toBeNull();
    expect(await poolCredits()).toBe(before - 1);
    // A revoked key stays revoked.
    expect((await lookup(slowKey.token)).status).toBe(401);
  });
});

describe.each(targets)("$kind server: an admin's own budget", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;

  it("is set by an owner: the admin cannot clear or raise it themselves, but sets those of members below", async () => {
    const service = await client.admin();
    const owner = await client.analyst(service, "budget-owner", 0);
    const admin = await client.analyst(service, "budget-admin", 0);
    const analyst = await client.analyst(service, "budget-analyst", 0);
    const teamId = ((await api(owner, "POST", "/api/workspaces", { name: "Budgets" })).body as { workspace: { id: string } }).workspace.id;
    for (const [who, role] of [[admin, "admin"], [analyst, "analyst"]] as const) {
      const invited = (await api(owner, "POST", `/api/workspaces/${teamId}/invitations`, { email: who.email, role })).body as { invitation: { url: string } };
      expect((await api(who, "POST", "/api/invitations/accept", { token: new URL(invited.invitation.url).hash.replace(/^#token=/, "") })).status).toBe(200);
    }
    const member = (userId: string) => `/api/workspaces/${teamId}/members/${userId}`;
    expect((await api(owner, "PATCH", member(admin.id), { monthlyBudgetCredits: 30 })).status).toBe(200);
    for (const monthlyBudgetCredits of [null, 1000]) {
      const refused = await api(admin, "PATCH", member(admin.id), { monthlyBudgetCredits });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.text).toContain("Only an owner can change your own monthly budget.");
    }
    expect((await api(admin, "PATCH", member(analyst.id), { monthlyBudgetCredits: 10 })).status).toBe(200);
    const members = (await api(owner, "GET", `/api/workspaces/${teamId}/members`)).body as { members: { userId: string; monthlyBudgetCredits: number | null }[] };
    expect(members.members.find((entry) => entry.userId === admin.id)?.monthlyBudgetCredits).toBe(30);
    expect(members.members.find((entry) => entry.userId === analyst.id)?.monthlyBudgetCredits).toBe(10);
  });
});
