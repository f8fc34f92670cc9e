import { beforeAll, describe, expect, inject, it } from "vitest";
import { PROFILE_7 } from "@/tests/support/demo-subjects";
import { consoleClient, type Answer, type Session } from "./console-client";
import { randomSecret, type ApiTarget } from "./harness";

/**
 * Roles, enforced in one place (docs/teams.md "Roles"): every role of a team workspace — owner,
 * admin, analyst, viewer — and someone outside it, and the service administrator, against every
 * console route that reads or changes workspace data, keys, batches, lookups and the audit log.
 * Each answer is the one the role table gives: allowed, 403, or 404 for a workspace (or another
 * member's object) the caller may not know.
 */
const targets = inject("apiTargets");

type Who = "owner" | "admin" | "analyst" | "viewer" | "outsider" | "service";
const EVERYONE: readonly Who[] = ["owner", "admin", "analyst", "viewer", "outsider", "service"];

type Row = {
  route: string;
  /** What each caller gets. */
  expect: Record<Who, number>;
  /** The request as this caller sends it (a mutation may need a fresh object per caller). */
  send: (who: Who) => Promise<Answer>;
};

const tokenOf = (url: string): string => new URL(url).hash.replace(/^#token=/, "");

describe.each(targets)("$kind server: the role × route matrix of a team workspace", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;
  const sessions = {} as Record<Who, Session>;
  let teamId = "";
  let ownerKeyId = "";
  let analystKeyId = "";
  let analystBatchId = "";

  const as = (who: Who) => sessions[who];
  const ok = (answer: Answer, status: number) => {
    expect(answer.status, answer.text).toBe(status);
    return answer.body as Record<string, unknown>;
  };

  /** Someone new (their account made by the service administrator) joins with this role: their id. */
  const newMember = async (role: "admin" | "analyst" | "viewer"): Promise<string> => {
    const joining = await client.analyst(as("service"), `member-${role}`, 0);
    const invited = ok(await api(as("owner"), "POST", `/api/workspaces/${teamId}/invitations`, { email: joining.email, role }), 201);
    ok(await api(joining, "POST", "/api/invitations/accept", { token: tokenOf((invited.invitation as { url: string }).url) }), 200);
    const members = ok(await api(as("owner"), "GET", `/api/workspaces/${teamId}/members`), 200).members as { userId: string; email: string }[];
    const member = members.find((entry) => entry.email === joining.email);
    if (!member) throw new Error("the new member is not listed");
    return member.userId;
  };

  /** A key of the analyst's in the team (drawing from the pool): its id. */
  const analystKey = async (): Promise<string> =>
    ((ok(await api(as("analyst"), "POST", "/api/keys", { name: `k ${randomSecret(4)}`, workspaceId: teamId }), 201).key as { id: string }).id);

  beforeAll(async () => {
    sessions.service = await client.admin();
    sessions.owner = await client.analyst(sessions.service, "owner", 1000);
    sessions.admin = await client.analyst(sessions.service, "admin", 1000);
    sessions.analyst = await client.analyst(sessions.service, "analyst", 0);
    sessions.viewer = await client.analyst(sessions.service, "viewer", 0);
    sessions.outsider = await client.analyst(sessions.service, "outsider", 1000);
    teamId = (ok(await api(as("owner"), "POST", "/api/workspaces", { name: "Research" }), 201).workspace as { id: string }).id;
    for (const who of ["admin", "analyst", "viewer"] as const) {
      const invited = ok(await api(as("owner"), "POST", `/api/workspaces/${teamId}/invitations`, { email: as(who).email, role: who }), 201);
      const accepted = ok(await api(as(who), "POST", "/api/invitations/accept", { token: tokenOf((invited.invitation as { url: string }).url) }), 200);
      expect(accepted.workspace).toMatchObject({ id: teamId, role: who, personal: false });
    }
    // The outsider has a team of their own: its objects are not the team's.
    ok(await api(as("outsider"), "POST", "/api/workspaces", { name: "Elsewhere" }), 201);
    expect(ok(await api(as("service"), "POST", `/api/workspaces/${teamId}/credits`, { credits: 500 }), 200)).toMatchObject({ poolCredits: 500 });
    ownerKeyId = ((ok(await api(as("owner"), "POST", "/api/keys", { name: "owner's", workspaceId: teamId }), 201).key as { id: string }).id);
    analystKeyId = await analystKey();
    for (const who of ["analyst", "viewer"] as const) ok(await api(as(who), "POST", `/api/workspaces/${teamId}/switch`), 200);
    analystBatchId = (
      ok(await api(as("analyst"), "POST", "/api/batches", { operation: "get_user_publications", inputs: [PROFILE_7], maxCredits: 5 }), 201) as {
        id: string;
      }
    ).id;
  });

  const ws = (suffix = "") => `/api/workspaces/${teamId}${suffix}`;
  const all = (status: number, changes: Partial<Record<Who, number>> = {}): Record<Who, number> => ({
    ...Object.fromEntries(EVERYONE.map((who) => [who, status])),
    ...changes,
  }) as Record<Who, number>;

  const rows: Row[] = [
    { route: "GET /api/workspaces/{id}", expect: all(200, { outsider: 404 }), send: (who) => api(as(who), "GET", ws()) },
    {
      route: "PATCH /api/workspaces/{id}",
      expect: all(200, { analyst: 403, viewer: 403, outsider: 404 }),
      send: (who) => api(as(who), "PATCH", ws(), { qpsLimit: null }),
    },
    { route: "GET /api/workspaces/{id}/members", expect: all(200, { outsider: 404 }), send: (who) => api(as(who), "GET", ws("/members")) },
    {
      // A member names themselves: past the gate it is refused as a rule (409), so the fixture keeps
      // its owner; the service administrator (no member) hands it to its owner, which changes nothing.
      route: "POST /api/workspaces/{id}/transfer",
      expect: all(409, { admin: 403, analyst: 403, viewer: 403, outsider: 404, service: 200 }),
      send: (who) => api(as(who), "POST", ws("/transfer"), { userId: who === "service" ? as("owner").id : as(who).id }),
    },
    {
      route: "GET /api/workspaces/{id}/invitations",
      expect: all(200, { analyst: 403, viewer: 403, outsider: 404 }),
      send: (who) => api(as(who), "GET", ws("/invitations")),
    },
    {
      route: "POST /api/workspaces/{id}/invitations",
      expect: all(201, { analyst: 403, viewer: 403, outsider: 404 }),
      send: (who) => api(as(who), "POST", ws("/invitations"), { email: `x-${randomSecret(6).toLowerCase().replace(/[^a-z0-9]/g, "x")}@example.test`, role: "viewer" }),
    },
    {
      route: "DELETE /api/workspaces/{id}/invitations/{invitationId}",
      expect: all(200, { analyst: 403, viewer: 403, outsider: 404 }),
      send: async (who) => {
        const invited = ok(await api(as("owner"), "POST", ws("/invitations"), { email: `r-${Date.now()}@example.test`, role: "viewer" }), 201);
        return api(as(who), "DELETE", ws(`/invitations/${(invited.invitation as { id: string }).id}`));
      },
    },
    {
      route: "PATCH /api/workspaces/{id}/members/{userId}",
      expect: all(200, { analyst: 403, viewer: 403, outsider: 404 }),
      send: (who) => api(as(who), "PATCH", ws(`/members/${as("viewer").id}`), { monthlyBudgetCredits: 50 }),
    },
    {
      route: "DELETE /api/workspaces/{id}/members/{userId}",
      expect: all(200, { analyst: 403, viewer: 403, outsider: 404 }),
      send: async (who) => {
        const victim = ["owner", "admin", "service"].includes(who) ? await newMember("viewer") : as("viewer").id;
        return api(as(who), "DELETE", ws(`/members/${victim}`));
      },
    },
    {
      route: "POST /api/workspaces/{id}/credits",
      expect: all(200, { analyst: 403, viewer: 403, outsider: 404 }),
      send: (who) => api(as(who), "POST", ws("/credits"), { credits: 1 }),
    },
    {
      route: "GET /api/usage/summary?workspaceId=&groupBy=member",
      expect: all(200, { outsider: 404 }),
      send: (who) => api(as(who), "GET", `/api/usage/summary?workspaceId=${teamId}&groupBy=member,key`),
    },
    { route: "GET /api/workspaces/{id}/audit", expect: all(200, { analyst: 403, outsider: 404 }), send: (who) => api(as(who), "GET", ws("/audit")) },
    // The service administrator sees every workspace but works only in those they belong to.
    { route: "POST /api/workspaces/{id}/switch", expect: all(200, { outsider: 404, service: 403 }), send: (who) => api(as(who), "POST", ws("/switch")) },
    {
      // A viewer gets their own keys there (none, or those suspended by a demotion).
      route: "GET /api/keys?workspaceId=",
      expect: all(200, { outsider: 404 }),
      send: (who) => api(as(who), "GET", `/api/keys?workspaceId=${teamId}`),
    },
    {
      route: "POST /api/keys {workspaceId}",
      expect: all(201, { viewer: 403, outsider: 404 }),
      send: (who) => api(as(who), "POST", "/api/keys", { name: `m ${who}`, workspaceId: teamId, capCredits: 10, capPeriod: "month" }),
    },
    // Another member's key: seen by those who manage the workspace's keys only.
    { route: "GET /api/keys/{analyst's key}", expect: all(200, { viewer: 404, outsider: 404 }), send: (who) => api(as(who), "GET", `/api/keys/${analystKeyId}`) },
    { route: "GET /api/keys/{owner's key}", expect: all(200, { analyst: 404, viewer: 404, outsider: 404 }), send: (who) => api(as(who), "GET", `/api/keys/${ownerKeyId}`) },
    {
      route: "PATCH /api/keys/{id} (policy)",
      expect: all(200, { viewer: 404, outsider: 404 }),
      send: (who) => api(as(who), "PATCH", `/api/keys/${analystKeyId}`, { operations: null }),
    },
    {
      route: "PUT /api/keys/{id}/cap",
      expect: all(200, { analyst: 403, viewer: 404, outsider: 404 }),
      send: (who) => api(as(who), "PUT", `/api/keys/${analystKeyId}/cap`, { capCredits: 100, capPeriod: "total" }),
    },
    {
      route: "PUT /api/keys/{id}/budget",
      expect: all(200, { analyst: 403, viewer: 404, outsider: 404 }),
      send: (who) => api(as(who), "PUT", `/api/keys/${analystKeyId}/budget`, { dailyCreditCap: 100 }),
    },
    // Rolling hands out a token: only the key's maker may.
    {
      route: "POST /api/keys/{id}/roll",
      expect: all(422, { analyst: 200, viewer: 404, outsider: 404 }),
      send: (who) => api(as(who), "POST", `/api/keys/${analystKeyId}/roll`, { grace: "none" }),
    },
    // A team key's credits are the pool's: the service administrator tops up the pool instead.
    {
      route: "POST /api/keys/{id}/credits",
      expect: all(403, { service: 422 }),
      send: (who) => api(as(who), "POST", `/api/keys/${analystKeyId}/credits`, { credits: 5, reason: "matrix" }),
    },
    {
      route: "DELETE /api/keys/{id} (revoke)",
      expect: all(200, { viewer: 404, outsider: 404 }),
      send: async (who) => api(as(who), "DELETE", `/api/keys/${await analystKey()}`),
    },
    // A console batch is its maker's, in the workspace they made it in, and seen by those who
    // manage the workspace's batches (owners and admins, the team active for them).
    {
      route: "GET /api/batches/{id}",
      expect: all(404, { owner: 200, admin: 200, analyst: 200, service: 200 }),
      send: (who) => api(as(who), "GET", `/api/batches/${analystBatchId}`),
    },
    // Lookups in the active workspace: the viewer (switched to the team) may not run them.
    {
      route: "GET /api/console/lookup (active: the team)",
      expect: { owner: 200, admin: 200, analyst: 200, viewer: 403, outsider: 200, service: 200 },
      send: async (who) => {
        if (who === "owner" || who === "admin") ok(await api(as(who), "POST", ws("/switch")), 200);
        return api(as(who), "GET", `/api/console/lookup/get_user_publications?urn=${encodeURIComponent(PROFILE_7)}`);
      },
    },
    {
      route: "POST /api/batches (active: the team)",
      expect: all(201, { viewer: 403 }),
      send: (who) => api(as(who), "POST", "/api/batches", { operation: "get_user_publications", inputs: [PROFILE_7], maxCredits: 1 }),
    },
  ];

  it("answers every route as the role table says", async () => {
    // Those outside the team run their lookups and batches in their personal workspace with a console key of their own.
    for (const who of ["outsider", "service"] as const) {
      ok(await api(as(who), "POST", "/api/keys", { name: "console", credits: who === "service" ? 100 : 50, useForConsole: true }), 201);
    }
    const mismatches: string[] = [];
    for (const row of rows) {
      for (const who of EVERYONE) {
        const answer = await row.send(who);
        if (answer.status !== row.expect[who]) mismatches.push(`${row.route} as ${who}: ${answer.status} (expected ${row.expect[who]}) ${answer.text.slice(0, 160)}`);
        if (answer.status === 403 || answer.status === 404) {
          const error = (answer.body as { error?: { message?: string } } | undefined)?.error;
          if (!error?.message) mismatches.push(`${row.route} as ${who}: ${answer.status} without a readable message`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("lists a workspace's keys with their maker for owners and admins, and only their own for an analyst", async () => {
    const keysOf = async (who: Who) =>
      ok(await api(as(who), "GET", `/api/keys?workspaceId=${teamId}`), 200).keys as { id: string; maker: { email: string } | null; poolId: string | null }[];
    const seenByOwner = await keysOf("owner");
    expect(seenByOwner.find((key) => key.id === analystKeyId)).toMatchObject({ maker: { email: as("analyst").email }, poolId: teamId });
    expect(seenByOwner.some((key) => key.id === ownerKeyId)).toBe(true);
    const seenByAnalyst = await keysOf("analyst");
    expect(seenByAnalyst.length).toBeGreaterThan(0);
    expect(seenByAnalyst.every((key) => key.maker?.email === as("analyst").email)).toBe(true);
  });

  it("shows the team's usage by member: the analyst's console lookups and batch are theirs", async () => {
    const body = ok(await api(as("viewer"), "GET", `/api/usage/summary?workspaceId=${teamId}&groupBy=member`), 200) as {
      groups: { member: { id: string; label: string; requests: number; credits: number }[] };
    };
    const analyst = body.groups.member.find((group) => group.id === as("analyst").id);
    expect(analyst?.label).toBe(as("analyst").email);
    expect(analyst?.credits).toBeGreaterThan(0);
  });

  it("keeps the team's audit log to the team: membership, role, key, cap and pool changes with who did them", async () => {
    const entries = ok(await api(as("viewer"), "GET", `${ws("/audit")}?limit=200`), 200).entries as { action: string; actorEmail: string; workspaceId: string }[];
    const actions = new Set(entries.map((entry) => entry.action));
    for (const action of ["workspace.create", "member.invite", "member.join", "member.budget", "member.remove", "invitation.revoke", "pool.credits", "key.create", "key.cap"]) {
      expect(actions, action).toContain(action);
    }
    expect(entries.every((entry) => entry.workspaceId === teamId)).toBe(true);
    expect(entries.find((entry) => entry.action === "pool.credits")?.actorEmail).toBe(as("service").email);
  });
});
