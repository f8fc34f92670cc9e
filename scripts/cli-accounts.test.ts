import { describe, expect, it } from "vitest";
import { EXIT } from "@/lib/cli/open";
import { openDb } from "@/lib/database";
import { listKeys } from "@/lib/keys/repository";
import { createUser, setUserStatus, type User } from "@/lib/users/repository";
import { cliFolders, runScript as run } from "@/tests/support/cli";

/**
 * The CLIs as a calling script sees them: spawned with tsx against a fresh embedded database
 * (a temporary DATA_DIR), judged by their exit codes. Keys of users and team workspaces (scripts/cli.test.ts: usage, keys, the database; scripts/cli-data.test.ts: import and export).
 */
const { migrated: migratedDir } = cliFolders();

describe("CLI exit codes: keys of users and teams", () => {
  it("keys create --owner EMAIL: the key is that user's; keys list shows each key's owner", async () => {
    const dataDir = migratedDir("sl-cli-owner-");
    const db = await openDb({ dataDir, timeoutMs: 5000 });
    let analyst: User;
    try {
      analyst = await createUser(db, { email: "ana@example.com", name: "Ana", role: "analyst", passwordHash: null, creditAllowance: 0 });
      const disabled = await createUser(db, { email: "off@example.com", name: "Off", role: "analyst", passwordHash: null, creditAllowance: 0 });
      await setUserStatus(db, disabled.id, "disabled");
    } finally {
      await db.close();
    }
    const owned = await run(dataDir, "keys.ts", ["create", "--name", "nightly", "--credits", "50", "--owner", "Ana@Example.com", "--json"]);
    expect(owned.code).toBe(EXIT.ok);
    const created = JSON.parse(owned.stdout) as { id: string; owner: string };
    expect(created.owner).toBe("ana@example.com");
    expect((await run(dataDir, "keys.ts", ["create", "--name", "ownerless", "--credits", "5"])).code).toBe(EXIT.ok);
    // A key given to a user counts towards MAX_KEYS_PER_USER, as in the console.
    const overLimit = await run(dataDir, "keys.ts", ["create", "--name", "second", "--credits", "5", "--owner", "ana@example.com"], {
      MAX_KEYS_PER_USER: "1",
    });
    expect([overLimit.code, overLimit.stderr.split("\n")[0]]).toEqual([EXIT.usage, expect.stringMatching(/^error: You already have 1 active keys/)]);
    const unknown = await run(dataDir, "keys.ts", ["create", "--name", "x", "--credits", "5", "--owner", "nobody@example.com"]);
    expect([unknown.code, unknown.stderr.split("\n")[0]]).toEqual([EXIT.notFound, expect.stringMatching(/^error: no user with email nobody@example\.com/)]);
    const disabledOwner = await run(dataDir, "keys.ts", ["create", "--name", "x", "--credits", "5", "--owner", "off@example.com"]);
    expect([disabledOwner.code, disabledOwner.stderr.split("\n")[0]]).toEqual([EXIT.usage, expect.stringMatching(/^error: off@example\.com is disabled/)]);

    const listed = await run(dataDir, "keys.ts", ["list"]);
    const [header, ...rows] = listed.stdout.trim().split("\n").map((line) => line.split("\t"));
    expect(header?.slice(0, 3)).toEqual(["id", "name", "owner"]);
    expect(rows.map((row) => [row[1], row[2]]).sort()).toEqual([
      ["nightly", "ana@example.com"],
      ["ownerless", "-"],
    ]);

    // It is in the analyst's "My keys" (the console lists a user's own keys by owner).
    const reopened = await openDb({ dataDir, timeoutMs: 5000 });
    try {
      expect((await listKeys(reopened, analyst.id)).map((key) => key.id)).toEqual([created.id]);
    } finally {
      await reopened.close();
    }
  }, 180_000);

  it("workspaces: a team with its owner and members, its pool granted, and keys create --workspace drawing on it", async () => {
    const dataDir = migratedDir("sl-cli-teams-");
    const db = await openDb({ dataDir, timeoutMs: 5000 });
    try {
      for (const email of ["lead@example.com", "ana@example.com", "out@example.com"]) {
        await createUser(db, { email, name: email, role: "analyst", passwordHash: null, creditAllowance: 0 });
      }
    } finally {
      await db.close();
    }
    const created = await run(dataDir, "workspaces.ts", ["create", "--name", "Research", "--owner", "lead@example.com", "--json"]);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect((await run(dataDir, "workspaces.ts", ["add-member", id, "--email", "ana@example.com", "--role", "analyst"])).code).toBe(EXIT.ok);
    const granted = await run(dataDir, "workspaces.ts", ["credits", id, "250"]);
    expect([granted.code, granted.stdout.trim()]).toEqual([EXIT.ok, `Added 250 credits to the pool of ${id}: 250 remaining of 250 granted.`]);
    const key = await run(dataDir, "keys.ts", ["create", "--name", "pipeline", "--workspace", id, "--owner", "ana@example.com", "--cap", "40", "--cap-period", "month", "--json"]);
    expect(key.code, key.stderr).toBe(EXIT.ok);
    expect(JSON.parse(key.stdout)).toMatchObject({ name: "pipeline", credits: 250, owner: "ana@example.com", workspace: id, pool: id });
    // One after the other: the embedded database admits one process at a time.
    const refusals = [];
    for (const [script, args] of [
      ["keys.ts", ["create", "--name", "x", "--workspace", id, "--owner", "out@example.com"]],
      ["keys.ts", ["create", "--name", "x", "--workspace", id, "--credits", "5"]],
      ["keys.ts", ["create", "--name", "x", "--workspace", "wst_nope"]],
      ["workspaces.ts", ["add-member", id, "--email", "ana@example.com", "--role", "viewer"]],
    ] as const) {
      refusals.push(await run(dataDir, script, [...args]));
    }
    expect(refusals.map((result) => [result.code, result.stderr.split("\n")[0]])).toEqual([
      [EXIT.usage, expect.stringMatching(/^error: out@example\.com is not a member/)],
      [EXIT.usage, expect.stringMatching(/^error: a key of a team workspace draws from its pool/)],
      [EXIT.notFound, expect.stringMatching(/^error: no workspace with id wst_nope/)],
      [EXIT.usage, expect.stringMatching(/^error: ana@example\.com is already a member/)],
    ]);
    const listed = await run(dataDir, "workspaces.ts", ["list", "--json"]);
    const team = (JSON.parse(listed.stdout) as { id: string; personal: boolean; poolCredits: number; members: number }[]).find((entry) => entry.id === id);
    expect(team).toMatchObject({ personal: false, poolCredits: 250, members: 2 });
  }, 180_000);

});
