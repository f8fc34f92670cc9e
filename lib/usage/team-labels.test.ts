import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { keyLabel } from "@/lib/keys/label";
import { pgliteDatabase } from "@/tests/support/databases";
import { newKey, newPooledKey, newTeam, newUser, settleScript } from "@/tests/support/usage";
import { listEvents } from "./events";
import { burnRateForecast } from "./forecast";
import { memberSpendThisMonth } from "./member-spend";
import { summary } from "./summary";
import { utcDay } from "./period";

/**
 * A team's usage as people read it: the console's keys ("Console", one per member) are named with
 * their maker wherever usage lists keys; the pool is forecast once, not once per key drawing from
 * it; and each member's spend this month is what their budget is checked against.
 */
const database = pgliteDatabase();
let db: Db;
let team: string;
let annConsole: string;
let benConsole: string;
let ownKey: string;
let annId: string;
let benId: string;
let ownerId: string;

beforeAll(async () => {
  db = await database.open();
  const owner = await newUser(db, "labels-owner@example.com");
  const ann = await newUser(db, "labels-ann@example.com");
  const ben = await newUser(db, "labels-ben@example.com");
  [ownerId, annId, benId] = [owner.id, ann.id, ben.id];
  team = await newTeam(db, owner.id, 500, [{ userId: ann.id, budget: 20 }, { userId: ben.id }]);
  annConsole = (await newPooledKey(db, team, ann.id, null, "Console")).id;
  benConsole = (await newPooledKey(db, team, ben.id, null, "Console")).id;
  ownKey = (await newKey(db, ann.id, 100, "ann's script")).id;
  const calls = (keyId: string, count: number) =>
    Array.from({ length: count }, () => ({ keyId, operation: "followers", costCredits: 2, outcome: "found" as const, agoMs: 1000, latencyMs: 2 }));
  await settleScript(db, [...calls(annConsole, 3), ...calls(benConsole, 1), ...calls(ownKey, 2)]);
}, 120_000);

afterAll(async () => {
  await db?.close();
  await database.cleanup();
});

const scope = () => ({ kind: "keys" as const, keyIds: [annConsole, benConsole, ownKey] });

describe("keyLabel", () => {
  it("names a console key with its maker, and any other key by its name", () => {
    expect(keyLabel("Console", "ana@example.com")).toBe("Console — ana@example.com");
    expect(keyLabel("Console", null)).toBe("Console");
    expect(keyLabel("Nightly script", "ana@example.com")).toBe("Nightly script");
  });
});

describe("usage of a team's console keys", () => {
  it("labels each console key with its maker in the by-key groups", async () => {
    const today = utcDay(new Date());
    const result = await summary(db, scope(), { from: today, to: today, groupBy: ["key"] });
    expect(Object.fromEntries((result.groups.key ?? []).map((group) => [group.id, group.label]))).toEqual({
      [annConsole]: "Console — labels-ann@example.com",
      [benConsole]: "Console — labels-ben@example.com",
      [ownKey]: "ann's script",
    });
  });

  it("labels them in the request log too", async () => {
    const page = await listEvents(db, scope(), {}, { limit: 50 });
    const names = new Set(page.events.map((event) => event.keyName));
    expect(names).toEqual(new Set(["Console — labels-ann@example.com", "Console — labels-ben@example.com", "ann's script"]));
  });

  it("forecasts the pool once for its two keys, and the key with its own credits by itself", async () => {
    const forecast = await burnRateForecast(db, scope());
    expect(forecast.pools).toHaveLength(1);
    expect(forecast.pools[0]).toMatchObject({ workspaceId: team, workspaceName: "Team", keysInScope: 2, creditsRemaining: 492, creditsSpent: 8 });
    expect(forecast.keys.map((key) => [key.keyId, key.keyName, key.creditsRemaining])).toEqual([[ownKey, "ann's script", 96]]);
    expect(forecast.totalKeys).toBe(1);
  });

  it("reads each member's spend this month from their keys in the workspace only", async () => {
    const spent = await memberSpendThisMonth(db, team);
    expect(Object.fromEntries(spent)).toEqual({ [ownerId]: 0, [annId]: 6, [benId]: 2 });
  });
});
