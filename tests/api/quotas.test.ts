import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleClient, type Session } from "./console-client";
import { API_DATABASES, EVENT_SITE_HOST, findPostgres, isUnavailable, randomSecret, type ApiTarget, type TargetKind } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * Per-user limits on servers of their own, started with small values, on the embedded database
 * and on PostgreSQL: MAX_KEYS_PER_USER active keys, BATCH_MAX_OPEN_PER_USER batches queued or
 * running and BATCH_MAX_OPEN_INPUTS_PER_USER inputs not yet done. No batch runs here
 * (BATCH_MAX_RUNNING_PER_INSTANCE=0), so what is open stays open until the test changes it.
 */
const MAX_KEYS = 3;
const MAX_OPEN_BATCHES = 2;
const MAX_OPEN_INPUTS = 3000;

const unknownUrls = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => `https://${EVENT_SITE_HOST}/events/${9_000_000_000_000_001 + from + index}/`);

type Limited = { target: ApiTarget; dropSchema: (() => Promise<void>) | null };

const newLimitedTarget = async (kind: TargetKind): Promise<Limited | null> => {
  let databaseUrl: string | null = null;
  let dropSchema: (() => Promise<void>) | null = null;
  if (kind === "postgres") {
    const admin = await findPostgres();
    if (isUnavailable(admin)) return null;
    const schema = `sl_quotas_${randomSecret(8).toLowerCase().replace(/[^a-z0-9]/g, "x")}`;
    const client = await admin.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    databaseUrl = `postgresql://${encodeURIComponent(admin.user)}@127.0.0.1:5432/test?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    dropSchema = async () => {
      const dropper = await admin.connect();
      await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await dropper.end();
    };
  }
  const target = await startOwnServer({
    label: `quotas-${kind}`,
    ...(databaseUrl === null ? {} : { databaseUrl }),
    env: {
      MAX_KEYS_PER_USER: String(MAX_KEYS),
      BATCH_MAX_OPEN_PER_USER: String(MAX_OPEN_BATCHES),
      BATCH_MAX_OPEN_INPUTS_PER_USER: String(MAX_OPEN_INPUTS),
      BATCH_MAX_RUNNING_PER_INSTANCE: "0",
    },
  });
  return { target, dropSchema };
};

const limited: Limited[] = [];

beforeAll(async () => {
  // Both at once; every server that did start is kept, so afterAll stops it even if the other failed.
  const started = await Promise.allSettled(API_DATABASES.map(newLimitedTarget));
  for (const result of started) if (result.status === "fulfilled" && result.value !== null) limited.push(result.value);
  const failed = started.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}, 300_000);

afterAll(async () => {
  for (const { target, dropSchema } of limited) {
    await stopOwnServer(target);
    await dropSchema?.();
  }
});

describe.each([...API_DATABASES])("per-user limits on %s", (kind) => {
  const target = () => {
    const found = limited.find((entry) => entry.target.kind === kind)?.target;
    if (!found) throw new Error(`no ${kind} server (PostgreSQL unreachable?)`);
    return found;
  };
  let admin: Session;
  const client = () => consoleClient(target());

  beforeAll(async () => {
    admin = await client().admin();
  });

  const createKey = (session: Session, name: string) => client().api(session, "POST", "/api/keys", { name, credits: 0, qpsLimit: 1 });

  it(`refuses an analyst's key beyond ${MAX_KEYS} active ones with 422 and a readable message, and admits one again after a revoke`, async () => {
    const analyst = await client().analyst(admin, "keys-limit", 0);
    const made: string[] = [];
    for (let index = 0; index < MAX_KEYS; index += 1) {
      const answer = await createKey(analyst, `key ${index}`);
      expect(answer.status, answer.text).toBe(201);
      made.push((answer.body as { key: { id: string } }).key.id);
    }
    const refused = await createKey(analyst, "one too many");
    expect(refused.status).toBe(422);
    expect((refused.body as { error: { message: string } }).error.message).toBe(
      `You already have ${MAX_KEYS} active keys, the most one user may hold (${MAX_KEYS}). Revoke a key you no longer use, then create the new one.`,
    );
    const revoked = await client().api(analyst, "DELETE", `/api/keys/${made[0]}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect((await createKey(analyst, "after the revoke")).status).toBe(201);
    // Another analyst is not affected.
    const other = await client().analyst(admin, "keys-limit-other", 0);
    expect((await createKey(other, "mine")).status).toBe(201);
  });

  it("admits exactly the limit of keys when many are created at once", async () => {
    const analyst = await client().analyst(admin, "keys-race", 0);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => createKey(analyst, `race ${index}`)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_KEYS);
    expect(answers.filter((answer) => answer.status === 422)).toHaveLength(8 - MAX_KEYS);
    const listed = await client().api(analyst, "GET", "/api/keys");
    expect((listed.body as { keys: unknown[] }).keys).toHaveLength(MAX_KEYS);
  });

  describe("batch quotas", () => {
    let analyst: Session;
    const create = (inputs: string[]) =>
      client().api(analyst, "POST", "/api/batches", { operation: "event_details", inputs, maxCredits: 100 });
    const act = (id: string, action: "pause" | "resume" | "cancel") => client().api(analyst, "POST", `/api/batches/${id}/${action}`, {});
    const messageOf = (answer: { body: unknown }) => (answer.body as { error: { code: string; message: string } }).error;

    beforeAll(async () => {
      analyst = await client().analyst(admin, "batch-quota", 1000);
      await client().consoleKey(analyst, 100, 5);
    });

    it("answers 429 beyond the open batches or the open inputs, says how many are open, and cancelling frees room", async () => {
      const small = await create(unknownUrls(500));
      expect(small.status, small.text).toBe(201);
      const smallId = (small.body as { id: string }).id;
      // Written in chunks: all 2,500 inputs are there.
      const large = await create(unknownUrls(2500, 1000));
      expect(large.status, large.text).toBe(201);
      const largeBatch = large.body as { id: string; total: number };
      expect(largeBatch.total).toBe(2500);
      const items = await client().api(analyst, "GET", `/api/batches/${largeBatch.id}/items?limit=5&afterPosition=2497&afterPage=1`);
      expect(items.status, items.text).toBe(200);
      expect((items.body as { items: { position: number; input: string }[] }).items.map((item) => [item.position, item.input])).toEqual([
        [2498, unknownUrls(1, 1000 + 2497)[0]],
        [2499, unknownUrls(1, 1000 + 2498)[0]],
        [2500, unknownUrls(1, 1000 + 2499)[0]],
      ]);

      const third = await create(unknownUrls(1, 5000));
      expect(third.status).toBe(429);
      expect(messageOf(third)).toEqual({
        code: "quota_exceeded",
        message: "You have 2 batches queued or running, the most one user may have (2). Wait for one to finish, or cancel one to make room.",
      });

      // A paused batch is not running, but its inputs are not done: they still count.
      expect((await act(smallId, "pause")).status).toBe(200);
      const overInputs = await create(unknownUrls(1, 5000));
      expect(overInputs.status).toBe(429);
      expect(messageOf(overInputs).message).toBe(
        "You have 3,000 inputs not yet done in open batches; this batch adds 1, over the 3,000 one user may have open. " +
          "Wait for batches to finish, or cancel one to free room.",
      );

      // Cancelling frees room for both.
      expect((await act(smallId, "cancel")).status).toBe(200);
      const fits = await create(unknownUrls(400, 6000));
      expect(fits.status, fits.text).toBe(201);
      const fitsId = (fits.body as { id: string }).id;

      // Resuming counts too: with two queued, a paused batch cannot come back.
      expect((await act(fitsId, "pause")).status).toBe(200);
      expect((await create(unknownUrls(1, 7000))).status).toBe(201);
      const resumed = await act(fitsId, "resume");
      expect(resumed.status).toBe(429);
      expect(messageOf(resumed).code).toBe("quota_exceeded");
    });

    it("admits exactly the open-batch limit when many batches are created at once", async () => {
      const racer = await client().analyst(admin, "batch-race", 1000);
      await client().consoleKey(racer, 100, 5);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          client().api(racer, "POST", "/api/batches", { operation: "event_details", inputs: unknownUrls(3, index * 10), maxCredits: 100 }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_OPEN_BATCHES);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(6 - MAX_OPEN_BATCHES);
    });
  });
});
