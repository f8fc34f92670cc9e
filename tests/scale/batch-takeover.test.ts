import { describe, expect, it } from "vitest";
import { signInWithPassword } from "@/lib/cli/console-session";
import { cluster, control, database, delay, readLedger, skipped, useWholeCluster } from "./harness";

/**
 * A batch runs on exactly one instance at a time (a lease in PostgreSQL). When that
 * instance is SIGKILLed mid-batch another takes the batch over once the lease lapses, finishes
 * it, and no input is charged twice: 40 found events, 40 usage records of 200, 160 credits.
 * And a second user's batch, started at the same time under /v1 with an API key, progresses
 * beside the first (batches of different users share the instances), and loses nothing either.
 */
const EVENT_IDS = Array.from({ length: 40 }, (_, index) => String(1_000_000_000_000_001 + index));

type BatchView = { id: string; status: string; done: number; succeeded: number; failed: number; creditsSpent: number };

describe.skipIf(skipped())("a batch whose instance is killed", () => {
  useWholeCluster({ repairAfter: true });

  it("finishes on another instance with every input charged once", async () => {
    const [first] = cluster().instances;
    if (!first) throw new Error("no instance");
    const base = first.baseUrl;
    const { session } = await signInWithPassword(base, cluster().admin, "/batches");
    if (session === null) throw new Error("no session cookie for the admin");
    const api = async (method: string, path: string, json?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Cookie: session, "Content-Type": "application/json", Accept: "application/json" },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };

    const key = await api("POST", "/api/keys", { name: `scale batch ${Date.now()}`, credits: 1000, qpsLimit: 8, useForConsole: true });
    expect(key.status).toBe(201);
    const keyId = (key.body as { key: { id: string } }).key.id;
    const created = await api("POST", "/api/batches", {
      operation: "event_details_id",
      inputs: EVENT_IDS,
      maxCredits: 1000,
    });
    expect(created.status).toBe(201);
    const batchId = (created.body as { id: string }).id;

    // A second user, with a batch of their own started under /v1 at the same time.
    const email = `scale-second-${Date.now()}@example.test`;
    const password = `pw ${crypto.randomUUID()}`;
    const user = await api("POST", "/api/admin/users", { email, name: "Second", role: "analyst", password, creditAllowance: 1000 });
    expect(user.status).toBe(201);
    const second = await signInWithPassword(base, { email, password }, "/batches");
    if (second.session === null) throw new Error("no session for the second user");
    const secondKeyAnswer = await fetch(`${base}/api/keys`, {
      method: "POST",
      headers: { Cookie: second.session, "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ name: "second scale batch", credits: 1000, qpsLimit: 8, useForConsole: true }),
    });
    const secondKey = (await secondKeyAnswer.json()) as { key: { id: string }; token: string };
    const secondCreated = await fetch(`${base}/v1/batches`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secondKey.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ operation: "event_details_id", inputs: EVENT_IDS }),
    });
    expect(secondCreated.status).toBe(202);
    const secondId = ((await secondCreated.json()) as { data: { id: string } }).data.id;
    // Read through the owner's console session: a /v1 read would take a slot of the key's 8/s.
    const secondSession = second.session;
    const secondProgress = async (baseUrl: string): Promise<BatchView> => {
      const response = await fetch(`${baseUrl}/api/batches/${secondId}`, { headers: { Cookie: secondSession, Accept: "application/json" } });
      return (await response.json()) as BatchView;
    };

    const leaseOwner = async (): Promise<string | null> =>
      (await database().query<{ lease_owner: string | null }>("SELECT lease_owner FROM batches WHERE id = $1", [batchId])).rows[0]
        ?.lease_owner ?? null;
    const progress = async (): Promise<BatchView> => (await api("GET", `/api/batches/${batchId}`)).body as BatchView;

    // Mid-way: some inputs done, one instance holding the batch.
    const deadline = Date.now() + 60_000;
    while ((await progress()).done < 8 || (await secondProgress(base)).done < 4) {
      if (Date.now() > deadline) throw new Error("the batch did not start");
      await delay(100);
    }
    const owner = await leaseOwner();
    const holderPort = Number(owner?.split(":")[1]);
    const holder = cluster().instances.find((instance) => instance.port === holderPort);
    if (!holder) throw new Error(`no instance holds the batch (lease owner ${owner ?? "none"})`);
    const doneAtKill = (await progress()).done;
    await control.killInstance(holder.index);
    console.log(`[batch-takeover] killed instance ${holder.index} (port ${holderPort}) with ${doneAtKill}/40 done`);

    // Progress is read from an instance that is still alive.
    const survivor = cluster().instances.find((instance) => instance.index !== holder.index);
    if (!survivor) throw new Error("no surviving instance");
    const survivorProgress = async (): Promise<BatchView> => {
      const response = await fetch(`${survivor.baseUrl}/api/batches/${batchId}`, { headers: { Cookie: session, Accept: "application/json" } });
      return (await response.json()) as BatchView;
    };
    const finishBy = Date.now() + 120_000;
    let final = await survivorProgress();
    while (final.status !== "done") {
      if (Date.now() > finishBy) throw new Error(`the batch was not finished by another instance: ${JSON.stringify(final)}`);
      await delay(250);
      final = await survivorProgress();
    }
    expect(final).toMatchObject({ done: 40, succeeded: 40, failed: 0, creditsSpent: 160 });
    let secondFinal = await secondProgress(survivor.baseUrl);
    while (secondFinal.status !== "done") {
      if (Date.now() > finishBy) throw new Error(`the second batch was not finished: ${JSON.stringify(secondFinal)}`);
      await delay(250);
      secondFinal = await secondProgress(survivor.baseUrl);
    }
    expect(secondFinal).toMatchObject({ done: 40, succeeded: 40, failed: 0, creditsSpent: 160 });
    const secondLedger = await readLedger(secondKey.key.id);
    expect(secondLedger.usage.filter((row) => row.status === 200)).toHaveLength(40);
    expect(secondLedger.creditsGranted - secondLedger.creditsRemaining).toBe(160);

    const ledger = await readLedger(keyId);
    const charged = ledger.usage.filter((row) => row.status === 200);
    expect(charged).toHaveLength(40);
    expect(ledger.creditsGranted - ledger.creditsRemaining).toBe(160);
    const items = await database().query<{ request_id: string | null; http_status: number }>(
      "SELECT request_id::text AS request_id, http_status FROM batch_items WHERE batch_id = $1",
      [batchId],
    );
    expect(items.rows).toHaveLength(40);
    expect(new Set(items.rows.map((row) => row.request_id)).size).toBe(40);
    expect(new Set(charged.map((row) => row.request_id))).toEqual(new Set(items.rows.map((row) => row.request_id)));
  });
});
