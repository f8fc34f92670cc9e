import { beforeAll, describe, expect, inject, it } from "vitest";
import { PROFILE_7 } from "@/tests/support/demo-subjects";
import { consoleClient, type Answer, type Session } from "./console-client";
import { randomSecret, type ApiTarget } from "./harness";
import { contractMessages as messages } from "./http";

/**
 * What the console says about a team's spending limits (docs/teams.md "The pool"): a console
 * lookup refused with 402 carries `limit` — which limit ran out (/v1/account's `limited_by`) and
 * who can lift it — while the envelope stays /v1's; the meter's one figure left is what can
 * really be spent; a viewer's lookup is refused with the server's sentence; the members list says
 * what each member spent this month.
 */
const targets = inject("apiTargets");

const TEAM = `Limits team ${randomSecret(4).replace(/[^A-Za-z0-9]/g, "x")}`;
const PUBLICATIONS = `/api/console/lookup/get_user_publications?urn=${encodeURIComponent(PROFILE_7)}`;

type Member = { userId: string; email: string; monthlyBudgetCredits: number | null; spentThisMonthCredits: number };
type Meter = {
  key: { creditsRemaining: number; creditsSpendable: number; limitedBy: string; limitCredits: number; limitMessage: string | null } | null;
  lookups: { allowed: boolean; role: string | null; message: string | null };
};

describe.each(targets)("$kind server: a team's limits in the console", (target: ApiTarget) => {
  const client = consoleClient(target);
  const { api } = client;
  let service: Session;
  let owner: Session;
  let ana: Session;
  let vic: Session;
  let teamId = "";

  const ok = (answer: Answer, status: number) => {
    expect(answer.status, answer.text).toBe(status);
    return answer.body as Record<string, unknown>;
  };
  const join = async (session: Session, role: string) => {
    const invitation = ok(await api(owner, "POST", `/api/workspaces/${teamId}/invitations`, { email: session.email, role }), 201).invitation as { url: string };
    ok(await api(session, "POST", "/api/invitations/accept", { token: new URL(invitation.url).hash.replace(/^#token=/, "") }), 200);
    ok(await api(session, "POST", `/api/workspaces/${teamId}/switch`), 200);
  };
  const members = async (as: Session) => ok(await api(as, "GET", `/api/workspaces/${teamId}/members`), 200).members as Member[];
  const meter = async (as: Session) => ok(await api(as, "GET", "/api/console/meter"), 200) as unknown as Meter;

  beforeAll(async () => {
    service = await client.admin();
    owner = await client.analyst(service, "limits-owner", 0);
    ana = await client.analyst(service, "limits-ana", 0);
    vic = await client.analyst(service, "limits-vic", 0);
    teamId = (ok(await api(owner, "POST", "/api/workspaces", { name: TEAM }), 201).workspace as { id: string }).id;
    ok(await api(service, "POST", `/api/workspaces/${teamId}/credits`, { credits: 3 }), 200);
    await join(ana, "analyst");
    await join(vic, "viewer");
    ok(await api(owner, "PATCH", `/api/workspaces/${teamId}/members/${ana.id}`, { monthlyBudgetCredits: 1 }), 200);
  });

  it("says what each member spent this month in the members list, for every role", async () => {
    expect((await api(ana, "GET", PUBLICATIONS)).status).toBe(200);
    for (const as of [owner, ana, vic]) {
      const byEmail = new Map((await members(as)).map((member) => [member.email, member]));
      expect(byEmail.get(ana.email)).toMatchObject({ monthlyBudgetCredits: 1, spentThisMonthCredits: 1 });
      expect(byEmail.get(owner.email)).toMatchObject({ monthlyBudgetCredits: null, spentThisMonthCredits: 0 });
    }
  });

  it("answers a spent budget with /v1's envelope and the limit: which, and who can raise it", async () => {
    const refused = await api(ana, "GET", PUBLICATIONS);
    expect(refused.status).toBe(402);
    expect(refused.headers.get("x-credits-charged")).toBe("0");
    expect(refused.body).toMatchObject({
      code: 402,
      message: messages.quota,
      data: null,
      limit: {
        by: "budget",
        message: `Your monthly budget in ${TEAM} is spent (1 of 1 credit) — an owner or admin of ${TEAM} can raise it, or it starts again on the 1st at 00:00 UTC.`,
      },
    });
    // The meter's figure left is the budget's, not the pool's 2.
    expect((await meter(ana)).key).toMatchObject({
      creditsRemaining: 2,
      creditsSpendable: 0,
      limitedBy: "budget",
      limitCredits: 1,
      limitMessage: (refused.body as { limit: { message: string } }).limit.message,
    });
  });

  it("answers an empty pool with who funds it", async () => {
    ok(await api(owner, "PATCH", `/api/workspaces/${teamId}/members/${ana.id}`, { monthlyBudgetCredits: null }), 200);
    expect((await meter(ana)).key).toMatchObject({ creditsSpendable: 2, limitedBy: "pool", limitMessage: null });
    for (let index = 0; index < 2; index += 1) expect((await api(ana, "GET", PUBLICATIONS)).status).toBe(200);
    const refused = await api(ana, "GET", PUBLICATIONS);
    expect(refused.status).toBe(402);
    expect((refused.body as { limit: unknown }).limit).toEqual({
      by: "pool",
      message: `The pool of ${TEAM} is empty — an owner or admin of ${TEAM} can move credits into it from their allowance, or the service administrator can fund it.`,
    });
    expect((await members(owner)).find((member) => member.email === ana.email)).toMatchObject({ monthlyBudgetCredits: null, spentThisMonthCredits: 3 });
  });

  it("refuses a viewer's lookup with the server's sentence, and the meter says so too", async () => {
    const refused = await api(vic, "GET", PUBLICATIONS);
    expect(refused.status).toBe(403);
    const sentence = "Your role in this workspace (viewer) cannot run lookups. Switch to a workspace where you may.";
    expect(refused.body).toEqual({ error: { code: "forbidden", message: sentence } });
    expect(await meter(vic)).toMatchObject({ key: null, lookups: { allowed: false, role: "viewer", message: sentence } });
    expect((await meter(ana)).lookups).toEqual({ allowed: true, role: "analyst", message: null });
  });

  it("refuses an analyst the workspace's audit log with a sentence that says why", async () => {
    const refused = await api(ana, "GET", `/api/workspaces/${teamId}/audit`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: "forbidden", message: "Your role in this workspace (analyst) cannot see this workspace's audit log." } });
  });
});
