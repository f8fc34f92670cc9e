import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createAuthenticator } from "@/lib/keys/authenticate";
import { createKey } from "@/lib/keys/repository";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { createRateLimiter } from "@/lib/ratelimit/limiter";
import { pgliteDatabase } from "@/tests/support/databases";
import { newTeam, newUser, TEST_SECRET } from "@/tests/support/usage";
import { admit, type AdmitDeps } from "./admit";

/** A workspace's shared requests-per-second limit, besides each key's own (docs/teams.md). */
const database = pgliteDatabase();
let db: Db;
let deps: AdmitDeps;

beforeAll(async () => {
  db = await database.open();
  deps = {
    authenticator: createAuthenticator({ db: async () => db, verify: createTokenVerifier(TEST_SECRET), ttlMs: 0 }),
    limiter: createRateLimiter({}),
  };
}, 120_000);

afterAll(async () => {
  await db?.close();
  await database.cleanup();
});

describe("admission with a workspace's shared limit", () => {
  it("admits no more in a second across the workspace's keys than its limit, each key within its own", async () => {
    const owner = await newUser(db, "shared-limit@example.test");
    const team = await newTeam(db, owner.id, 1000);
    await db.query("UPDATE workspaces SET qps_limit = 5 WHERE id = $1", [team]);
    const keys = [];
    for (const qpsLimit of [100, 100, 2]) {
      keys.push(await createKey(db, TEST_SECRET, { name: "k", ownerId: owner.id, credits: 0, qpsLimit, expiresAt: null, workspaceId: team }));
    }
    const at = Date.now();
    const outcomes = [];
    for (let round = 0; round < 4; round += 1) {
      for (const { token } of keys) {
        outcomes.push(await admit(`Bearer ${token}`, crypto.randomUUID(), deps, { operationId: null, clientAddress: "127.0.0.1", startedAt: at }));
      }
    }
    expect(outcomes.filter((outcome) => outcome.kind === "admitted")).toHaveLength(5);
    const refused = outcomes.filter((outcome) => outcome.kind === "rate_limited");
    expect(refused).toHaveLength(7);
    // A refusal by the shared limit describes the shared limit.
    expect(refused.some((outcome) => outcome.headers["RateLimit-Limit"] === "5" && Number(outcome.headers["Retry-After"]) >= 1)).toBe(true);
    // A personal key (no shared limit) is untouched by the team's.
    const personal = await createKey(db, TEST_SECRET, { name: "p", ownerId: owner.id, credits: 0, qpsLimit: 100, expiresAt: null });
    expect((await admit(`Bearer ${personal.token}`, crypto.randomUUID(), deps, { operationId: null, clientAddress: "127.0.0.1", startedAt: at })).kind).toBe(
      "admitted",
    );
  });
});
