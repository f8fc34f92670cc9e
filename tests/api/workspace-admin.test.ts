import { beforeAll, describe, expect, inject, it } from "vitest";
import { PROFILE_7 } from "@/tests/support/demo-subjects";
import { consoleClient, type Answer, type Session } from "./console-client";
import { randomSecret, type ApiTarget } from "./harness";
import { call, contractMessages as messages, costs, expectError, paths } from "./http";

/**
 * Funding a team (docs/teams.md "Funding a team"): the service administrator lists every
 * workspace with its pool, members, refill and limit (GET /api/admin/workspaces) and grants
 * credits to a team's pool with a reason (POST /api/admin/workspaces/{id}/credits) — exactly that
 * many, audited, in one statement — and nobody else can mint credits there. A team's owner
 * renames it.
 */
const targets = inject("apiTargets");

type Who = "owner" | "admin" | "analyst" | "viewer" | "outsider";

type AdminWorkspace = {
  id: string;
  name: string;
  personal: boolean;
  poolCredits: number;
  poolGranted: number;
  qpsLimit: number | null;
  refill: { credits: number; interval: string; dayOfMonth: number | null; mode: string } | null;
  memberCount: number;
  ownerEmails: string[];
};

type AuditEntry = { action: string; actorEmail: string; targetId: string; workspaceId: string | null; details: Record<string, unknown> };

const tokenOf = (url: string): string => new URL(url).hash.replace(/^#token=/, "");

describe.each(targets)("$kind server: the service administrator funds a team", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;
  const sessions = {} as Record<Who, Session>;
  let service: Session;
  let teamId = "";
  let analystToken = "";

  const as = (who: Who) => sessions[who];
  const ok = (answer: Answer, status: number) => {
    expect(answer.status, answer.text).toBe(status);
    return answer.body as Record<string, unknown>;
  };
  const errorOf = (answer: Answer) => (answer.body as { error: { code: string; message: string } }).error;
  const grant = (session: Session, workspaceId: string, body: unknown) => api(session, "POST", `/api/admin/workspaces/${workspaceId}/credits`, body);
  const listed = async (): Promise<AdminWorkspace[]> => ok(await api(service, "GET", "/api/admin/workspaces"), 200).workspaces as AdminWorkspace[];
  const entryOf = async (id: string): Promise<AdminWorkspace | undefined> => (await listed()).find((workspace) => workspace.id === id);
  const poolOf = async (id: string): Promise<number> => ((ok(await api(service, "GET", `/api/workspaces/${id}`), 200).workspace as { poolCredits: number }).poolCredits);
  const lookup = () => call(target, paths.publications, { auth: { authorization: `Bearer ${analystToken}` }, query: { urn: PROFILE_7 } });

  beforeAll(async () => {
    service = await client.admin();
    sessions.owner = await client.analyst(service, "fund-owner", 1000);
    sessions.admin = await client.analyst(service, "fund-admin", 1000);
    sessions.analyst = await client.analyst(service, "fund-analyst", 0);
    sessions.viewer = await client.analyst(service, "fund-viewer", 0);
    sessions.outsider = await client.analyst(service, "fund-outsider", 1000);
    teamId = (ok(await api(as("owner"), "POST", "/api/workspaces", { name: `Funded ${randomSecret(6)}` }), 201).workspace as { id: string }).id;
    for (const who of ["admin", "analyst", "viewer"] as const) {
      const invited = ok(await api(as("owner"), "POST", `/api/workspaces/${teamId}/invitations`, { email: as(who).email, role: who }), 201);
      ok(await api(as(who), "POST", "/api/invitations/accept", { token: tokenOf((invited.invitation as { url: string }).url) }), 200);
    }
    analystToken = (ok(await api(as("analyst"), "POST", "/api/keys", { name: "team script", workspaceId: teamId }), 201) as { token: string }).token;
  });

  describe("GET /api/admin/workspaces", () => {
    it("lists the new team with an empty pool, its members count, its owner, no refill and no limit", async () => {
      const entry = await entryOf(teamId);
      expect(entry).toMatchObject({ personal: false, poolCredits: 0, poolGranted: 0, qpsLimit: null, refill: null, memberCount: 4, ownerEmails: [as("owner").email] });
      const all = await listed();
      // Teams come first, then the personal workspaces.
      expect(all.findIndex((workspace) => workspace.personal)).toBeGreaterThan(all.findIndex((workspace) => workspace.id === teamId));
      expect(all.some((workspace) => workspace.personal && workspace.ownerEmails.includes(as("outsider").email))).toBe(true);
    });

    it("answers 403 to everyone but the service administrator", async () => {
      for (const who of ["owner", "admin", "analyst", "viewer", "outsider"] as const) {
        const answer = await api(as(who), "GET", "/api/admin/workspaces");
        expect(answer.status, who).toBe(403);
        expect(answer.text).not.toContain(teamId);
      }
    });
  });

  describe("POST /api/admin/workspaces/{id}/credits", () => {
    it("turns a new team's refused lookup into a served one: exactly the credits granted, with the reason in the audit log", async () => {
      expectError(await lookup(), 402, messages.quota);
      const granted = ok(await grant(service, teamId, { credits: 250, reason: "  first month of the field study " }), 200).workspace as AdminWorkspace;
      expect(granted).toMatchObject({ id: teamId, poolCredits: 250, poolGranted: 250, memberCount: 4 });
      expect(await poolOf(teamId)).toBe(250);

      expect((await lookup()).status).toBe(200);
      expect(await poolOf(teamId)).toBe(250 - costs[paths.publications]);

      const audit = ok(await api(as("owner"), "GET", `/api/workspaces/${teamId}/audit`), 200).entries as AuditEntry[];
      const entry = audit.find((row) => row.action === "pool.credits");
      expect(entry).toMatchObject({
        actorEmail: service.email,
        targetId: teamId,
        workspaceId: teamId,
        details: { credits: 250, from: "grant", reason: "first month of the field study", poolCredits: 250 },
      });
    });

    it("adds every one of many grants at once: each is one statement on the pool", async () => {
      const before = await poolOf(teamId);
      const answers = await Promise.all(Array.from({ length: 12 }, (_, index) => grant(service, teamId, { credits: 7, reason: `parallel grant ${index}` })));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 12 }, () => 200));
      expect(await poolOf(teamId)).toBe(before + 12 * 7);
      const entry = await entryOf(teamId);
      expect(entry?.poolGranted).toBe(250 + 12 * 7);
    });

    it("mints nothing for owners, admins, analysts, viewers or outsiders: 403, the pool unchanged", async () => {
      const before = await poolOf(teamId);
      for (const who of ["owner", "admin", "analyst", "viewer", "outsider"] as const) {
        const answer = await grant(as(who), teamId, { credits: 1000, reason: "let me in" });
        expect(answer.status, who).toBe(403);
        expect(errorOf(answer).code).toBe("forbidden");
      }
      const signedOut = await grant({ email: "", cookie: "", id: "" }, teamId, { credits: 1000, reason: "let me in" });
      expect(signedOut.status).toBe(401);
      expect(await poolOf(teamId)).toBe(before);
      const audit = ok(await api(service, "GET", `/api/workspaces/${teamId}/audit?limit=200`), 200).entries as AuditEntry[];
      expect(audit.filter((row) => row.action === "pool.credits" && row.actorEmail !== service.email)).toEqual([]);
    });

    it("keeps the members' own way in: an owner moves credits from their allowance, not minting any", async () => {
      const before = await poolOf(teamId);
      ok(await api(as("owner"), "POST", `/api/workspaces/${teamId}/credits`, { credits: 10 }), 200);
      expect(await poolOf(teamId)).toBe(before + 10);
      const tooMuch = await api(as("owner"), "POST", `/api/workspaces/${teamId}/credits`, { credits: 1000 });
      expect(tooMuch.status).toBe(422);
      expect(await poolOf(teamId)).toBe(before + 10);
    });

    it("answers 400 to an amount that is not a whole number from 1 to 1,000,000,000, or a missing reason, and grants nothing", async () => {
      const before = await poolOf(teamId);
      const bad: unknown[] = [
        { credits: 0, reason: "zero" },
        { credits: -5, reason: "negative" },
        { credits: 1.5, reason: "a fraction" },
        { credits: "10", reason: "a string" },
        { credits: null, reason: "null" },
        { credits: 1_000_000_001, reason: "too many" },
        { credits: 2 ** 53, reason: "far too many" },
        { credits: 1e308, reason: "absurd" },
        { reason: "no amount" },
        { credits: 10 },
        { credits: 10, reason: "  " },
        { credits: 10, reason: "x".repeat(501) },
        { credits: 10, reason: 42 },
        { credits: 10, reason: "extra field", workspaceId: "wst_other" },
        [10],
        "10",
      ];
      for (const body of bad) {
        const answer = await grant(service, teamId, body);
        expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(errorOf(answer).code).toBe("invalid_request");
      }
      expect(errorOf(await grant(service, teamId, { credits: 0, reason: "zero" })).message).toContain("at least 1");
      expect(await poolOf(teamId)).toBe(before);
    });

    it("answers 404 for an unknown or deleted workspace and 409 for a personal one", async () => {
      expect((await grant(service, "wst_nonexistent", { credits: 5, reason: "nobody" })).status).toBe(404);
      const personal = (await listed()).find((workspace) => workspace.personal && workspace.ownerEmails.includes(as("outsider").email));
      const answer = await grant(service, personal?.id ?? "", { credits: 5, reason: "personal" });
      expect(answer.status).toBe(409);
      expect(errorOf(answer).message).toContain("personal workspace has no pool");

      const doomed = (ok(await api(as("outsider"), "POST", "/api/workspaces", { name: "Short-lived" }), 201).workspace as { id: string }).id;
      ok(await api(as("outsider"), "DELETE", `/api/workspaces/${doomed}`), 200);
      expect((await grant(service, doomed, { credits: 5, reason: "too late" })).status).toBe(404);
      expect((await listed()).some((workspace) => workspace.id === doomed)).toBe(false);
    });
  });

  describe("refill, limit and name", () => {
    it("shows the refill and the shared limit the service administrator sets", async () => {
      ok(
        await api(service, "PATCH", `/api/workspaces/${teamId}`, {
          refill: { credits: 500, interval: "monthly", dayOfMonth: 15, mode: "top_up_to" },
          qpsLimit: 12,
        }),
        200,
      );
      expect(await entryOf(teamId)).toMatchObject({ qpsLimit: 12, refill: { credits: 500, interval: "monthly", dayOfMonth: 15, mode: "top_up_to" } });
      // The owner may set the limit but not the refill, which grants credits.
      expect((await api(as("owner"), "PATCH", `/api/workspaces/${teamId}`, { refill: { credits: 5, interval: "daily" } })).status).toBe(403);
      ok(await api(service, "PATCH", `/api/workspaces/${teamId}`, { refill: null, qpsLimit: null }), 200);
      expect(await entryOf(teamId)).toMatchObject({ qpsLimit: null, refill: null });
    });

    it("lets the owner rename the team, not an analyst; the list shows the new name", async () => {
      const name = `Renamed ${randomSecret(6)}`;
      expect((await api(as("analyst"), "PATCH", `/api/workspaces/${teamId}`, { name: "Mine now" })).status).toBe(403);
      expect((await api(as("owner"), "PATCH", `/api/workspaces/${teamId}`, { name: "   " })).status).toBe(400);
      expect(ok(await api(as("owner"), "PATCH", `/api/workspaces/${teamId}`, { name: `  ${name}  ` }), 200).workspace).toMatchObject({ id: teamId, name });
      expect((await entryOf(teamId))?.name).toBe(name);
    });
  });
});
