import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db/client";
import type { User } from "@/lib/users/repository";
import { UTF8_BOM } from "@/lib/export/bom";
import { pgliteDatabase } from "@/tests/support/databases";
import { newKey, newUser, settleScript } from "@/tests/support/usage";

/**
 * The console routes of usage, alerts and budgets, called as Next calls them, with the session
 * and the database swapped for a test user and a real PGlite. Every route is tried by an
 * analyst against another analyst's key (404, as for a key that does not exist), by the owner,
 * and by an admin.
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
const eventsRoute = await import("@/app/api/usage/events/route");
const exportRoute = await import("@/app/api/usage/export/route");
const alertsRoute = await import("@/app/api/alerts/route");
const ackRoute = await import("@/app/api/alerts/[id]/ack/route");
const keyAlertsRoute = await import("@/app/api/keys/[id]/alerts/route");
const budgetRoute = await import("@/app/api/keys/[id]/budget/route");

const database = pgliteDatabase();
let db: Db;
let alice: User;
let bob: User;
let admin: User;
let aliceKey: string;
let bobKey: string;
let bobAlert: string;
let aliceAlert: string;

type Handler = (request: Request, route?: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

const call = async (handler: Handler, path: string, options: { params?: Record<string, string>; method?: string; body?: unknown } = {}) => {
  const response = await handler(
    new Request(`http://localhost${path}`, {
      method: options.method ?? "GET",
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      headers: options.body === undefined ? undefined : { "Content-Type": "application/json" },
    }),
    { params: Promise.resolve(options.params ?? {}) },
  );
  return response;
};

const as = (user: User | null) => {
  session.user = user;
};

beforeAll(async () => {
  db = await database.open();
  session.db = db;
  alice = await newUser(db, "routes-alice@example.com");
  bob = await newUser(db, "routes-bob@example.com");
  admin = await newUser(db, "routes-admin@example.com", "admin");
  aliceKey = (await newKey(db, alice.id, 10, "alice")).id;
  bobKey = (await newKey(db, bob.id, 10, "bob")).id;
  await db.query("UPDATE api_keys SET alert_threshold_credits = 5 WHERE id = ANY($1::text[])", [[aliceKey, bobKey]]);
  const script = (keyId: string) =>
    Array.from({ length: 3 }, () => ({ keyId, operation: "followers", costCredits: 2, outcome: "found" as const, agoMs: 1000, latencyMs: 2 }));
  await settleScript(db, [...script(aliceKey), ...script(bobKey)]);
  const alerts = await db.query<{ id: string; key_id: string }>("SELECT id::text AS id, key_id FROM key_alerts");
  bobAlert = alerts.find((row) => row.key_id === bobKey)?.id ?? "";
  aliceAlert = alerts.find((row) => row.key_id === aliceKey)?.id ?? "";
}, 120_000);

afterAll(async () => {
  await db?.close();
  await database.cleanup();
});

describe("IDOR: an analyst never reads or changes another analyst's key", () => {
  const cases: [string, () => Promise<Response>][] = [
    ["GET /api/usage/summary?keyId", () => call(summaryRoute.GET, `/api/usage/summary?keyId=${bobKey}`)],
    ["GET /api/usage/events?keyId", () => call(eventsRoute.GET, `/api/usage/events?keyId=${bobKey}`)],
    ["GET /api/usage/export?kind=events", () => call(exportRoute.GET, `/api/usage/export?kind=events&keyId=${bobKey}`)],
    ["GET /api/usage/export?kind=daily", () => call(exportRoute.GET, `/api/usage/export?kind=daily&keyId=${bobKey}`)],
    ["GET /api/keys/:id/alerts", () => call(keyAlertsRoute.GET, "", { params: { id: bobKey } })],
    ["PUT /api/keys/:id/alerts", () => call(keyAlertsRoute.PUT, "", { params: { id: bobKey }, method: "PUT", body: { thresholdCredits: 1 } })],
    ["GET /api/keys/:id/budget", () => call(budgetRoute.GET, "", { params: { id: bobKey } })],
    ["PUT /api/keys/:id/budget", () => call(budgetRoute.PUT, "", { params: { id: bobKey }, method: "PUT", body: { dailyCreditCap: 0 } })],
    ["POST /api/alerts/:id/ack", () => call(ackRoute.POST, "", { params: { id: bobAlert }, method: "POST" })],
  ];

  for (const [name, run] of cases) {
    it(`${name} answers 404 for another analyst's key, exactly as for a missing one`, async () => {
      as(alice);
      const response = await run();
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    });
  }

  it("leaves the other analyst's key untouched", async () => {
    const rows = await db.query<{ cap: number | null; threshold: number | null }>(
      "SELECT daily_credit_cap AS cap, alert_threshold_credits::int AS threshold FROM api_keys WHERE id = $1",
      [bobKey],
    );
    expect(rows[0]).toEqual({ cap: null, threshold: 5 });
    const acked = await db.query("SELECT 1 FROM key_alerts WHERE key_id = $1 AND acknowledged_at IS NOT NULL", [bobKey]);
    expect(acked).toEqual([]);
  });

  it("a key id that does not exist answers the same 404", async () => {
    as(alice);
    const response = await call(summaryRoute.GET, "/api/usage/summary?keyId=key_doesnotexist");
    expect(response.status).toBe(404);
  });

  it("an analyst cannot name another user or everyone (403)", async () => {
    as(alice);
    for (const path of [`/api/usage/summary?userId=${bob.id}`, "/api/usage/events?scope=all", "/api/usage/export?scope=all"]) {
      const handler = path.includes("summary") ? summaryRoute.GET : path.includes("events") ? eventsRoute.GET : exportRoute.GET;
      expect((await call(handler, path)).status, path).toBe(403);
    }
  });

  it("all my keys means only mine: Bob's calls never appear in Alice's log or totals", async () => {
    as(alice);
    const summary = await (await call(summaryRoute.GET, "/api/usage/summary?groupBy=key")).json();
    expect(summary.groups.key.map((group: { id: string }) => group.id)).toEqual([aliceKey]);
    expect(summary.totals.requests).toBe(3);
    const events = await (await call(eventsRoute.GET, "/api/usage/events")).json();
    expect(new Set(events.events.map((event: { keyId: string }) => event.keyId))).toEqual(new Set([aliceKey]));
    const alerts = await (await call(alertsRoute.GET, "/api/alerts")).json();
    expect(alerts.alerts.map((alert: { keyId: string }) => alert.keyId)).toEqual([aliceKey]);
  });

  it("requires a session (401)", async () => {
    as(null);
    expect((await call(summaryRoute.GET, "/api/usage/summary")).status).toBe(401);
    expect((await call(alertsRoute.GET, "/api/alerts")).status).toBe(401);
  });
});

describe("admins", () => {
  it("read any key, any user and everyone", async () => {
    as(admin);
    expect((await call(summaryRoute.GET, `/api/usage/summary?keyId=${bobKey}`)).status).toBe(200);
    const byUser = await (await call(summaryRoute.GET, `/api/usage/summary?userId=${bob.id}&groupBy=key`)).json();
    expect(byUser.groups.key.map((group: { id: string }) => group.id)).toEqual([bobKey]);
    const everyone = await (await call(summaryRoute.GET, "/api/usage/summary?scope=all")).json();
    expect(everyone.totals.requests).toBe(6);
    expect((await call(summaryRoute.GET, "/api/usage/summary?userId=usr_nobody")).status).toBe(404);
    expect((await call(keyAlertsRoute.GET, "", { params: { id: bobKey } })).status).toBe(200);
  });

  it("see a key's alerts but not its owner's signing secret", async () => {
    as(admin);
    const view = await (await call(keyAlertsRoute.GET, "", { params: { id: bobKey } })).json();
    expect(view.signingSecret).toBeNull();
    as(bob);
    const own = await (await call(keyAlertsRoute.GET, "", { params: { id: bobKey } })).json();
    expect(own.signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });
});

describe("GET /api/usage/*: parameters", () => {
  it("answers 400 with a readable message for bad input", async () => {
    as(alice);
    const bad = [
      "/api/usage/summary?from=2025-02-30",
      "/api/usage/summary?from=2025-06-10&to=2025-06-01",
      "/api/usage/summary?from=2020-01-01&to=2025-01-01",
      "/api/usage/summary?groupBy=week",
      "/api/usage/events?status=abc",
      "/api/usage/events?operation=delete_everything",
      "/api/usage/events?requestId=123",
      "/api/usage/events?limit=5000",
      "/api/usage/events?cursor=bm9wZQ",
      "/api/usage/export?kind=xml",
    ];
    for (const path of bad) {
      const handler = path.includes("summary") ? summaryRoute.GET : path.includes("events") ? eventsRoute.GET : exportRoute.GET;
      const response = await call(handler, path);
      expect(response.status, path).toBe(400);
      expect((await response.json()).error.message, path).toEqual(expect.any(String));
    }
  });

  it("pages the log through the route with the returned cursor", async () => {
    as(alice);
    const first = await (await call(eventsRoute.GET, "/api/usage/events?limit=2")).json();
    expect(first.events).toHaveLength(2);
    const second = await (await call(eventsRoute.GET, `/api/usage/events?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.events).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
  });

  it("exports a CSV attachment", async () => {
    as(alice);
    const response = await call(exportRoute.GET, "/api/usage/export?kind=events&from=2020-01-01&to=2030-01-01");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="usage-events-2020-01-01-to-2030-01-01.csv"');
    // Bytes, not response.text(): the decoder drops a byte-order mark.
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await response.arrayBuffer());
    // A file handed to people: a UTF-8 byte-order mark first, so Excel does not read it in a legacy code page.
    expect(text.startsWith(UTF8_BOM)).toBe(true);
    const lines = text.slice(UTF8_BOM.length).trimEnd().split("\r\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe("request_id,created_at,key_id,key_name,operation,status,credits_charged,latency_ms,params_summary,reason,requests");
  });
});

describe("PUT /api/keys/:id/alerts and /budget", () => {
  it("saves a percent threshold and an https webhook; a left-out field is cleared", async () => {
    as(alice);
    const response = await call(keyAlertsRoute.PUT, "", {
      params: { id: aliceKey },
      method: "PUT",
      body: { thresholdPercent: 25, webhookUrl: "https://hooks.example.com/credits" },
    });
    expect(response.status).toBe(200);
    const view = await response.json();
    expect(view.settings).toMatchObject({
      thresholdCredits: null,
      thresholdPercent: 25,
      effectiveThresholdCredits: 3,
      webhookUrl: "https://hooks.example.com/credits",
    });
  });

  it("refuses both thresholds at once, plain http, credentials in the URL and addresses of this machine", async () => {
    as(alice);
    for (const body of [
      { thresholdCredits: 5, thresholdPercent: 10 },
      { webhookUrl: "http://hooks.example.com/" },
      { webhookUrl: "https://user:pass@hooks.example.com/" },
      { webhookUrl: "https://169.254.169.254/latest" },
      { thresholdPercent: 100 },
    ]) {
      const response = await call(keyAlertsRoute.PUT, "", { params: { id: aliceKey }, method: "PUT", body });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    // This machine is not a public address (WEBHOOK_ALLOWED_NETWORKS is unset here).
    const local = await call(keyAlertsRoute.PUT, "", {
      params: { id: aliceKey },
      method: "PUT",
      body: { thresholdCredits: 5, webhookUrl: "http://127.0.0.1:9999/hook" },
    });
    expect(local.status).toBe(400);
    expect(JSON.stringify(await local.json())).toContain("refused: not a public address");
  });

  it("sets and clears the daily cap", async () => {
    as(alice);
    const set = await call(budgetRoute.PUT, "", { params: { id: aliceKey }, method: "PUT", body: { dailyCreditCap: 7 } });
    expect(await set.json()).toEqual({ keyId: aliceKey, dailyCreditCap: 7, creditsSpentToday: 6 });
    const cleared = await call(budgetRoute.PUT, "", { params: { id: aliceKey }, method: "PUT", body: { dailyCreditCap: null } });
    expect((await cleared.json()).dailyCreditCap).toBeNull();
    const bad = await call(budgetRoute.PUT, "", { params: { id: aliceKey }, method: "PUT", body: { dailyCreditCap: -1 } });
    expect(bad.status).toBe(400);
  });

  it("refuses a cross-site PUT", async () => {
    as(alice);
    const response = await budgetRoute.PUT(
      new Request("http://localhost/api/keys/x/budget", {
        method: "PUT",
        body: JSON.stringify({ dailyCreditCap: 1 }),
        headers: { Origin: "https://evil.example", "Content-Type": "application/json" },
      }),
      { params: Promise.resolve({ id: aliceKey }) },
    );
    expect(response.status).toBe(403);
  });
});

describe("GET /api/alerts and POST /api/alerts/:id/ack", () => {
  it("shows the owner's open alert until it is acknowledged", async () => {
    as(alice);
    const before = await (await call(alertsRoute.GET, "/api/alerts")).json();
    expect(before.alerts).toEqual([
      expect.objectContaining({ id: aliceAlert, keyId: aliceKey, keyName: "alice", kind: "threshold", creditsRemaining: 4, thresholdCredits: 5 }),
    ]);
    const ack = await call(ackRoute.POST, "", { params: { id: aliceAlert }, method: "POST" });
    expect(await ack.json()).toEqual({ acknowledged: 1 });
    expect((await (await call(alertsRoute.GET, "/api/alerts")).json()).alerts).toEqual([]);
    expect((await call(ackRoute.POST, "", { params: { id: "not-a-number" }, method: "POST" })).status).toBe(404);
  });

  it("drops an alert once the key is topped up above its threshold", async () => {
    as(bob);
    expect((await (await call(alertsRoute.GET, "/api/alerts")).json()).alerts).toHaveLength(1);
    await db.query("UPDATE api_keys SET credits_remaining = 100 WHERE id = $1", [bobKey]);
    expect((await (await call(alertsRoute.GET, "/api/alerts")).json()).alerts).toEqual([]);
  });
});
