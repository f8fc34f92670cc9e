import { describe, expect, it } from "vitest";
import { testDatabases } from "@/tests/support/databases";

/** What the readiness check `embedded_worker` reads (lib/readiness.ts): the worker thread's state, with no statement sent. */
describe.each(await testDatabases())("embeddedWorker() on $name", (database) => {
  it(database.name === "pglite" ? "is alive while open and stopped once closed" : "is absent: PostgreSQL has no worker thread", async () => {
    const db = await database.open({ upkeep: false });
    try {
      expect(db.embeddedWorker()).toBe(database.name === "pglite" ? "alive" : "absent");
    } finally {
      await db.close();
      await database.cleanup();
    }
    expect(db.embeddedWorker()).toBe(database.name === "pglite" ? "stopped" : "absent");
    if (database.name === "pglite") await expect(db.query("SELECT 1")).rejects.toThrow(/closed/);
  }, 180_000);
});
