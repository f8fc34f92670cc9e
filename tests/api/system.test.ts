import { describe, expect, inject, it } from "vitest";
import packageJson from "@/package.json";
import type { InstanceView, SystemView } from "@/lib/system/view";
import { USER_30 } from "@/tests/support/demo-subjects";
import { consoleClient, type Session } from "./console-client";
import { delay, type ApiTarget } from "./harness";
import { call, paths } from "./http";

/**
 * GET /api/admin/system (docs/monitoring.md "The system page"): the service administrator sees
 * the instance that serves the suite, ready, with figures that move as /v1 lookups are made; an
 * analyst and a visitor are refused.
 */
const targets = inject("apiTargets");

/** The instance that answered, from an answer of the route. */
const currentOf = (view: SystemView): InstanceView | undefined => view.instances.find((instance) => instance.current);

describe.each(targets)("GET /api/admin/system on the $kind server", (target: ApiTarget) => {
  const client = consoleClient(target);
  const system = async (session: Session): Promise<SystemView> => {
    const answer = await client.api(session, "GET", "/api/admin/system");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    return answer.body as SystemView;
  };

  /** The serving instance's snapshot once `done` holds of it, read again every 500 ms for 20 s at most. */
  const currentWhen = async (session: Session, done: (instance: InstanceView) => boolean): Promise<InstanceView | undefined> => {
    let current: InstanceView | undefined;
    for (let attempt = 0; attempt < 40; attempt += 1) {
      current = currentOf(await system(session));
      if (current !== undefined && done(current)) return current;
      await delay(500);
    }
    return current;
  };

  it("shows the admin its own instance, live and ready, with its version, checks and figures", async () => {
    const admin = await client.admin();
    const current = await currentWhen(admin, () => true);
    expect(current, "the serving instance has a row").toBeDefined();
    expect(current).toMatchObject({ stale: false, version: packageJson.version, nodeVersion: expect.stringMatching(/^v\d+\./) });
    expect(current?.seenAgoS).toBeLessThanOrEqual(30);
    expect(current?.name).toMatch(/:\d+$/);
    const snapshot = current?.snapshot;
    expect(snapshot).toMatchObject({ format: 1, metrics: "on", database: target.kind === "postgres" ? "postgres" : "pglite" });
    expect(snapshot?.buildId, "a production server serves a build").toMatch(/\S/);
    expect(snapshot?.readiness?.ready).toBe(true);
    expect(snapshot?.readiness?.checks.map((check) => check.name)).toContain("database");
    expect(snapshot?.readiness?.checks.every((check) => check.ok)).toBe(true);
    expect(snapshot?.figures).toMatchObject({ requestsPerSecond: expect.any(Number), requestsTotal: expect.any(Number) });
    if (target.kind === "postgres") expect(snapshot?.figures?.dbWorkerQueueDepth).toBeNull();
  });

  it("counts /v1 lookups: the total, the rate, the non-200 share and the latency move after some", async () => {
    const admin = await client.admin();
    const key = await client.consoleKey(admin, 10_000, 1000);
    const before = (await currentWhen(admin, () => true))?.snapshot?.figures?.requestsTotal ?? 0;
    const found = 12;
    const missing = 3;
    for (let index = 0; index < found; index += 1) {
      const answer = await call(target, paths.followers, { auth: { authorization: `Bearer ${key.token}` }, query: { userid: USER_30 } });
      expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    }
    for (let index = 0; index < missing; index += 1) {
      const answer = await call(target, paths.followers, { auth: { authorization: `Bearer ${key.token}` }, query: { userid: "2999999999" } });
      expect(answer.status, answer.text.slice(0, 200)).toBe(404);
    }
    const after = await currentWhen(admin, (instance) => (instance.snapshot?.figures?.requestsTotal ?? 0) >= before + found + missing);
    const figures = after?.snapshot?.figures;
    expect(figures?.requestsTotal, "the snapshot counted the lookups").toBeGreaterThanOrEqual(before + found + missing);
    expect(figures?.requestsInWindow).toBeGreaterThanOrEqual(found + missing);
    expect(figures?.requestsPerSecond).toBeGreaterThan(0);
    expect(figures?.non200Rate).toBeGreaterThan(0);
    expect(figures?.errorRate).toBe(0);
    expect(figures?.p50LatencyMs).toBeGreaterThan(0);
    expect(figures?.p99LatencyMs).toBeGreaterThanOrEqual(figures?.p50LatencyMs ?? Number.POSITIVE_INFINITY);
  });

  it("refuses an analyst with 403 forbidden, and a visitor with 401", async () => {
    const analyst = await client.analyst(await client.admin(), "system", 0);
    const refused = await client.api(analyst, "GET", "/api/admin/system");
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: "forbidden", message: "This needs an administrator." } });
    const visitor = await call(target, "/api/admin/system");
    expect(visitor.status).toBe(401);
    expect(visitor.body).toMatchObject({ error: { code: "unauthenticated" } });
  });
});
