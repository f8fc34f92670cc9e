import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db/client";
import type { User } from "@/lib/users/repository";
import { pgliteDatabase } from "@/tests/support/databases";
import { newKey, newPooledKey, newTeam, newUser, settleScript } from "@/tests/support/usage";

/**
 * A team workspace's usage in the console (docs/teams.md "Usage"): the summary and the CSV
 * export by member, for every role of the workspace and nobody else, counting only the
 * workspace's keys; a removed member's usage stays theirs; the credit meter's pool and budget.
 * The route handlers run as Next runs them, on a real PGlite; only the session is the test's.
 */
const session = vi.hoisted(() => ({ user: null as User | null, db: null as Db | null }));

vi.mock("@/lib/auth/session", () => ({ currentUser: async () => session.user }));
vi.mock("@/lib/database", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/database")>();
  return {
    ...original,
    getDb: async () => {
      if (!session.db) throw new Error("test database not open");
      return session.db;
    },
  };
});

const summaryRoute = await import("@/app/api/usage/summary/route");
const exportRoute = await import("@/app/api/usage/export/route");
const meterRoute = await import("@/app/api/console/meter/route");

const database = pgliteDatabase();
let db: Db;
let owner: User;
let ann: User;
let ben: User;
let viewer: User;
let outsider: User;
let team: string;
let annPersonalKey: string;
let benKeyId: string;

const get = async (handler: (request: Request) => Promise<Response>, path: string, as: User) => {
  session.user = as;
  return handler(new Request(`http://localhost${path}`));
};

type MemberGroup = { id: string; label: string; credits: number; requests: number; member?: { name: string; email: string } };

const byMember = async (as: User) => {
  const response = await get(summaryRoute.GET, `/api/usage/summary?workspaceId=${team}&groupBy=member`, as);
  expect(response.status).toBe(200);
  return (await response.json()) as { totals: { credits: number }; groups: { member: MemberGroup[] }; scope: { kind: string; workspaceId: string } };
};

beforeAll(async () => {
  db = await database.open();
  session.db = db;
  owner = await newUser(db, "team-owner@example.com");
  ann = await newUser(db, "team-ann@example.com");
  ben = await newUser(db, "team-ben@example.com");
  viewer = await newUser(db, "team-viewer@example.com");
  outsider = await newUser(db, "team-outsider@example.com");
  team = await newTeam(db, owner.id, 1000, [{ userId: ann.id }, { userId: ben.id, budget: 20 }]);
  await db.query("INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'viewer')", [team, viewer.id]);
  const annKey = await newPooledKey(db, team, ann.id);
  const benKey = await newPooledKey(db, team, ben.id);
  benKeyId = benKey.id;
  annPersonalKey = (await newKey(db, ann.id, 100, "ann personal")).id;
  const calls = (keyId: string, count: number) =>
    Array.from({ length: count }, () => ({ keyId, operation: "followers", costCredits: 2, outcome: "found" as const, agoMs: 1000, latencyMs: 2 }));
  await settleScript(db, [...calls(annKey.id, 3), ...calls(benKey.id, 2), ...calls(annPersonalKey, 4)]);
}, 120_000);

afterAll(async () => {
  await db?.close();
  await database.cleanup();
});

describe("GET /api/usage/summary?workspaceId=…&groupBy=member", () => {
  it("groups the workspace's spend by the member who made each key, most credits first, named by e-mail", async () => {
    const summary = await byMember(viewer);
    expect(summary.scope).toMatchObject({ kind: "workspace", workspaceId: team });
    expect(summary.groups.member.map((group) => [group.id, group.credits, group.requests, group.member?.email])).toEqual([
      [ann.id, 6, 3, "team-ann@example.com"],
      [ben.id, 4, 2, "team-ben@example.com"],
    ]);
    expect(summary.groups.member[0]?.label).toBe("team-ann@example.com");
    // Ann's personal key is not the team's: its 8 credits are not counted.
    expect(summary.totals.credits).toBe(10);
  });

  it("is open to every role of the workspace: an analyst sees every member's spend too", async () => {
    expect((await byMember(ben)).groups.member).toHaveLength(2);
    expect((await byMember(owner)).totals.credits).toBe(10);
  });

  it("narrows to the keys one member made there with userId", async () => {
    const response = await get(summaryRoute.GET, `/api/usage/summary?workspaceId=${team}&userId=${ann.id}`, ben);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { totals: { credits: number } }).totals.credits).toBe(6);
  });

  it("answers 404 to someone outside the workspace, and for a key of another workspace", async () => {
    expect((await get(summaryRoute.GET, `/api/usage/summary?workspaceId=${team}&groupBy=member`, outsider)).status).toBe(404);
    expect((await get(summaryRoute.GET, "/api/usage/summary?workspaceId=wst_nosuchworkspace", owner)).status).toBe(404);
    expect((await get(summaryRoute.GET, `/api/usage/summary?workspaceId=${team}&keyId=${annPersonalKey}`, ann)).status).toBe(404);
  });

  it("refuses an unknown grouping with a readable 400", async () => {
    const response = await get(summaryRoute.GET, `/api/usage/summary?workspaceId=${team}&groupBy=team`, owner);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "invalid_request", message: "groupBy must list day, operation, key and/or member." } });
  });
});

describe("GET /api/usage/export?kind=members", () => {
  it("is the same by-member lines as CSV, for a viewer too", async () => {
    const response = await get(exportRoute.GET, `/api/usage/export?kind=members&workspaceId=${team}`, viewer);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="usage-members-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await response.text()).replace(/^\uFEFF/, "").trimEnd().split("\r\n");
    expect(lines[0]).toBe("from,to,member_id,member_name,member_email,requests,successful,failed,credits");
    expect(lines.slice(1).map((line) => line.split(",").slice(2))).toEqual([
      [ann.id, "team-ann@example.com", "team-ann@example.com", "3", "3", "0", "6"],
      [ben.id, "team-ben@example.com", "team-ben@example.com", "2", "2", "0", "4"],
    ]);
  });

  it("answers 404 to someone outside the workspace", async () => {
    expect((await get(exportRoute.GET, `/api/usage/export?kind=members&workspaceId=${team}`, outsider)).status).toBe(404);
  });
});

describe("GET /api/console/meter in a team workspace", () => {
  it("shows the pool and the member's own budget: spent and left this month", async () => {
    await db.query("UPDATE users SET active_workspace_id = $2 WHERE id = $1", [ben.id, team]);
    const response = await get(meterRoute.GET, "/api/console/meter", ben);
    expect(response.status).toBe(200);
    const meter = (await response.json()) as { pool: unknown; budget: unknown };
    expect(meter.pool).toEqual({ id: team, name: "Team", poolCredits: 990, poolGranted: 1000 });
    expect(meter.budget).toEqual({ monthlyCredits: 20, spentCredits: 4, leftCredits: 16 });
  });

  it("has one figure left: what the console key can spend under the pool and the budget, and which limit sets it", async () => {
    await db.query("UPDATE users SET active_workspace_id = $2, console_key_id = $3 WHERE id = $1", [ben.id, team, benKeyId]);
    const meter = (await (await get(meterRoute.GET, "/api/console/meter", { ...ben, consoleKeyId: benKeyId })).json()) as { key: unknown; lookups: unknown };
    // The pool holds 990, Ben's budget leaves 16 of 20: 16 is what he can spend.
    expect(meter.key).toMatchObject({ id: benKeyId, creditsRemaining: 990, creditsSpendable: 16, limitedBy: "budget", limitCredits: 20, capped: true, limitMessage: null });
    expect(meter.lookups).toEqual({ allowed: true, role: "analyst", message: null });
  });

  it("tells a viewer that their role cannot run lookups in the workspace", async () => {
    await db.query("UPDATE users SET active_workspace_id = $2 WHERE id = $1", [viewer.id, team]);
    const meter = (await (await get(meterRoute.GET, "/api/console/meter", viewer)).json()) as { key: unknown; lookups: unknown };
    expect(meter.key).toBeNull();
    expect(meter.lookups).toEqual({
      allowed: false,
      role: "viewer",
      message: "Your role in this workspace (viewer) cannot run lookups. Switch to a workspace where you may.",
    });
  });

  it("shows no pool in the personal workspace", async () => {
    const meter = (await (await get(meterRoute.GET, "/api/console/meter", outsider)).json()) as { pool: unknown; budget: unknown };
    expect(meter).toMatchObject({ pool: null, budget: null });
  });
});

describe("a removed member", () => {
  it("keeps their usage, attributed to them", async () => {
    await db.query("DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2", [team, ben.id]);
    const summary = await byMember(owner);
    expect(summary.groups.member.find((group) => group.id === ben.id)?.credits).toBe(4);
    expect((await get(summaryRoute.GET, `/api/usage/summary?workspaceId=${team}`, ben)).status).toBe(404);
  });
});
