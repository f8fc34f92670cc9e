import crypto from "node:crypto";
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  QuotaExceededError,
  SocialLookup,
  verifyWebhook,
  WebhookSignatureError,
  type Follower,
  type RetryEvent,
} from "@social-lookup/client";
import { startWebhookReceiver } from "@social-lookup/client/receiver";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { demoFixtures } from "@/lib/demo/fixtures";
import { consoleClient } from "./console-client";
import type { ApiTarget, IssuedKey } from "./harness";
import { call, eventUrl, paths, UUID_V4 } from "./http";

/**
 * The TypeScript SDK (@social-lookup/client, clients/typescript) against the production servers,
 * imported as a script imports it: every operation answers what /v1 answers, with its credit
 * receipt; pages are followed to the end exactly (10,000 followers, 400 pages, 800 credits) or
 * left early without spending more; a 2/s key iterated flat out waits as Retry-After says and
 * sees no error; 400/401/402/404 raise their classes at once, never retried; a batch runs end to
 * end (create, wait — ended by its signed webhook —, stream, exact credits, cancel); a forged
 * webhook is refused and the server's genuine one accepted.
 */
const targets = inject("apiTargets");

/** fetch, counting requests and keeping each answer's status, Retry-After and time. */
const recordingFetch = () => {
  const log: { url: string; status: number; retryAfter: string | null; sentAt: number; answeredAt: number }[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const sentAt = performance.now();
    const response = await fetch(input, init);
    log.push({ url: String(input), status: response.status, retryAfter: response.headers.get("retry-after"), sentAt, answeredAt: performance.now() });
    return response;
  };
  return { log, fetcher };
};

const clientFor = (target: ApiTarget, key: Pick<IssuedKey, "token">, options: ConstructorParameters<typeof SocialLookup>[0] = {}) =>
  new SocialLookup({ apiKey: key.token, baseUrl: target.baseUrl, ...options });

describe.each(targets.map((target) => [target.kind, target] as const))("the TypeScript SDK on %s", (_kind, target: ApiTarget) => {
  const key = target.keys.clientsTs;
  const client = clientFor(target, key);

  it("answers every operation as /v1 does, with its credit receipt and request id", async () => {
    const cases: { run: () => Promise<{ data: unknown; status: number; requestId: string; credits: { cost: number | null; charged: number; remaining: number | null } }>; path: string; query: Record<string, string>; cost: number }[] = [
      { run: () => client.eventDetails({ url: eventUrl("1000000000000001") }), path: paths.eventByUrl, query: { url: eventUrl("1000000000000001") }, cost: 4 },
      { run: () => client.eventDetailsId({ event_id: "1000000000000002" }), path: paths.eventById, query: { event_id: "1000000000000002" }, cost: 4 },
      { run: () => client.followers({ userid: "2000000002" }), path: paths.followers, query: { userid: "2000000002" }, cost: 2 },
      { run: () => client.publications({ urn: "urn:li:member:3000000001", page: 2 }), path: paths.publications, query: { urn: "urn:li:member:3000000001", page: "2" }, cost: 1 },
    ];
    for (const { run, path, query, cost } of cases) {
      const answer = await run();
      const direct = await call(target, path, { auth: key, query });
      expect(direct.status).toBe(200);
      expect(answer.data).toEqual((direct.body as { data: unknown }).data);
      expect(answer.status).toBe(200);
      expect(answer.requestId).toMatch(UUID_V4);
      expect(answer.credits.cost).toBe(cost);
      expect(answer.credits.charged).toBe(cost);
      // The direct call after it charged the same again: the SDK's receipt was the balance then.
      expect(answer.credits.remaining).toBe(Number(direct.headers.get("x-credits-remaining")) + cost);
    }
    const account = await client.account();
    expect(account.data.key).toMatchObject({ id: key.id, qps_limit: key.qps });
    expect(account.credits.charged).toBe(0);
  });

  it("iterates 2000000001's 10,000 followers to the end: exactly 10,000 entries in 400 pages for 800 credits", async () => {
    const before = (await client.account()).data.key.credits_remaining;
    const walk = client.followers.iterate({ userid: "2000000001" });
    const entries: Follower[] = [];
    for await (const follower of walk) entries.push(follower);
    expect(entries).toHaveLength(10_000);
    expect(new Set(entries.map((entry) => entry.node.entityId)).size).toBe(10_000);
    expect(walk.pagesFetched).toBe(400);
    expect(walk.creditsCharged).toBe(800);
    const after = (await client.account()).data.key.credits_remaining;
    expect(before - after).toBe(800);
    expect(walk.creditsRemaining).toBe(after);
  });

  it("stops early without spending more: 30 entries of a walk fetch 2 pages and charge 4 credits", async () => {
    const before = (await client.account()).data.key.credits_remaining;
    const walk = client.followers.iterate({ userid: "2000000001" });
    let seen = 0;
    for await (const _follower of walk) {
      seen += 1;
      if (seen === 30) break;
    }
    expect(walk.pagesFetched).toBe(2);
    expect(before - (await client.account()).data.key.credits_remaining).toBe(4);
  });

  it("walks publications' numbered pages: 45 publications, 5 pages, 5 credits; pages() shows each receipt", async () => {
    const pages = client.publications.pages({ urn: "urn:li:member:3000000001" });
    const seen: number[] = [];
    for await (const page of pages) {
      seen.push(page.data.page);
      expect(page.credits.charged).toBe(1);
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    const all = [];
    for await (const publication of client.publications.iterate({ urn: "urn:li:member:3000000001" })) all.push(publication.title);
    expect(all).toHaveLength(45);
    const limited = client.publications.iterate({ urn: "urn:li:member:3000000001" }, { maxPages: 2 });
    let count = 0;
    for await (const _publication of limited) count += 1;
    expect([count, limited.pagesFetched, limited.creditsCharged]).toEqual([20, 2, 2]);
  });

  it("a key at 2/s iterated as fast as possible gets no error and waits as Retry-After says", async () => {
    const { log, fetcher } = recordingFetch();
    const retries: RetryEvent[] = [];
    const slow = clientFor(target, target.keys.clientsTsSlow, { fetch: fetcher, onRetry: (event) => retries.push(event) });
    const started = performance.now();
    const titles: string[] = [];
    for await (const publication of slow.publications.iterate({ urn: "urn:li:member:3000000001" })) titles.push(publication.title);
    const elapsedMs = performance.now() - started;
    expect(titles).toHaveLength(45);
    const limited = log.filter((entry) => entry.status === 429);
    expect(limited.length, "the key's limit was reached").toBeGreaterThan(0);
    expect(retries.filter((event) => event.reason === "rate_limited")).toHaveLength(limited.length);
    for (const [index, entry] of log.entries()) {
      if (entry.status !== 429) continue;
      const retryAfterS = Number(entry.retryAfter);
      expect(retryAfterS).toBeGreaterThan(0);
      const next = log[index + 1];
      expect(next, "a 429 is followed by the same request again").toBeDefined();
      // The next request went out no sooner than Retry-After said (timers may fire a ms early).
      expect((next?.sentAt ?? 0) - entry.answeredAt).toBeGreaterThanOrEqual(retryAfterS * 1000 - 5);
    }
    expect(retries.every((event) => event.waitMs === Number(event.retryAfterS) * 1000)).toBe(true);
    // Five pages at 2 a second take more than 2 s, and all five were charged once.
    expect(elapsedMs).toBeGreaterThan(2000);
    expect(log.filter((entry) => entry.status === 200)).toHaveLength(5);
  });

  it("raises 402 as QuotaExceededError with the contract's message, charges nothing and never retries it", async () => {
    const { log, fetcher } = recordingFetch();
    const poor = clientFor(target, target.keys.clientsTsPoor, { fetch: fetcher });
    const failure = await poor.eventDetailsId({ event_id: "1000000000000001" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QuotaExceededError);
    if (!(failure instanceof QuotaExceededError)) return;
    expect(failure.message).toBe("apiKey quota is not enough");
    expect(failure.code).toBe(402);
    expect(failure.status).toBe(402);
    expect(failure.requestId).toMatch(UUID_V4);
    expect(failure.credits).toEqual({ cost: 4, charged: 0, remaining: 3 });
    expect(log).toHaveLength(1);
  });

  it("raises 400, 401 and 404 as their classes at once, never retried", async () => {
    const { log, fetcher } = recordingFetch();
    const counting = clientFor(target, key, { fetch: fetcher });
    await expect(counting.eventDetailsId({ event_id: "not-digits" })).rejects.toSatisfy(
      (error) => error instanceof BadRequestError && error.message === "Invalid parameter: event_id" && error.code === 400,
    );
    await expect(counting.followers({ userid: "2999999999" })).rejects.toSatisfy((error) => error instanceof NotFoundError && error.message === "User not found");
    const stranger = clientFor(target, { token: `${key.token.slice(0, -4)}AAAA` }, { fetch: fetcher });
    await expect(stranger.account()).rejects.toSatisfy((error) => error instanceof AuthenticationError && error.message === "apiKey is invalid");
    expect(log).toHaveLength(3);
  });

  it("an AbortSignal stops a walk between pages: nothing after the abort is fetched or charged", async () => {
    const controller = new AbortController();
    const { log, fetcher } = recordingFetch();
    const counting = clientFor(target, key, { fetch: fetcher });
    const walk = counting.followers.iterate({ userid: "2000000001" }, { signal: controller.signal });
    let seen = 0;
    const failure = await (async () => {
      for await (const _follower of walk) {
        seen += 1;
        if (seen === 25) controller.abort(new Error("enough"));
      }
    })().catch((error: unknown) => error);
    expect(failure).toEqual(new Error("enough"));
    expect(walk.pagesFetched).toBe(1);
    expect(log).toHaveLength(1);
    await expect(counting.account({ signal: AbortSignal.abort(new Error("before")) })).rejects.toEqual(new Error("before"));
    expect(log).toHaveLength(1);
  });

  describe("batches", () => {
    const consoleApi = consoleClient(target);
    let batchKey: { id: string; token: string };
    let secret: string;
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

    beforeAll(async () => {
      const admin = await consoleApi.admin();
      const analyst = await consoleApi.analyst(admin, "sdk-batches", 2000);
      batchKey = await consoleApi.consoleKey(analyst, 1000, 50);
      const alerts = await consoleApi.api(analyst, "GET", `/api/keys/${batchKey.id}/alerts`);
      secret = (alerts.body as { signingSecret: string }).signingSecret;
      // The suite's servers deliver webhooks to 127.0.0.9 only (WEBHOOK_ALLOWED_NETWORKS).
      receiver = await startWebhookReceiver({ secret, host: "127.0.0.9" });
    });
    afterAll(async () => {
      await receiver?.close();
    });

    it("runs end to end: create, wait (ended by its signed webhook), stream records and CSV, credits exact", async () => {
      const sdk = clientFor(target, batchKey);
      const unknown = Array.from({ length: 10 }, (_, index) => String(8_300_000_000_000_001 + index));
      const batch = await sdk.batches.create({ operation: "event_details_id", inputs: [...demoFixtures.eventIds, ...unknown, "abc", "12x"], webhookUrl: receiver.url });
      expect(batch.created).toMatchObject({ total: 50, maxCostCredits: 200 });
      expect(batch.created?.rejected.map((entry) => entry.input).sort()).toEqual(["12x", "abc"]);
      expect(batch.credits?.charged).toBe(0);

      const done = await batch.wait({ finished: receiver.batchFinished(batch.id), maxPollIntervalMs: 60_000, pollIntervalMs: 60_000 });
      expect(done).toMatchObject({ status: "done", total: 50, done: 50, succeeded: 40, notFound: 10, failed: 0, creditsSpent: 160 });
      // The webhook, not a 60 s poll, ended the wait: it arrived genuine and was accepted.
      expect(receiver.events.filter((event) => event.event === "batch.finished" && event.batchId === batch.id)).toHaveLength(1);
      expect(receiver.refused).toBe(0);

      const records = [];
      for await (const record of batch.results()) records.push(record as { event: { event_id: string } });
      expect(records.map((record) => record.event.event_id).sort()).toEqual([...demoFixtures.eventIds].sort());
      let csv = "";
      for await (const chunk of batch.csv()) csv += chunk;
      expect(csv.trimEnd().split("\r\n")).toHaveLength(51);
      expect((await sdk.account()).data.key.credits_remaining).toBe(1000 - 160);
    });

    it("refuses a forged webhook and accepts a genuine one", async () => {
      const event = receiver.events.find((candidate) => candidate.event === "batch.finished");
      expect(event).toBeDefined();
      const body = JSON.stringify({ ...event, creditsSpent: 0 });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signWith = (key: string) => `sha256=${crypto.createHmac("sha256", key).update(`${timestamp}.d-forged.${body}`).digest("hex")}`;
      const headers = { "X-SocialLookup-Delivery": "d-forged", "X-SocialLookup-Timestamp": timestamp, "X-SocialLookup-Signature": signWith("whsec_not-the-secret") };
      const posted = await fetch(receiver.url, { method: "POST", body, headers });
      expect(posted.status).toBe(401);
      expect(receiver.refused).toBe(1);
      await expect(verifyWebhook({ secret, body, headers })).rejects.toBeInstanceOf(WebhookSignatureError);
      const genuine = { ...headers, "X-SocialLookup-Signature": signWith(secret) };
      await expect(verifyWebhook({ secret, body: `${body} `, headers: genuine })).rejects.toBeInstanceOf(WebhookSignatureError);
      await expect(verifyWebhook({ secret, body, headers: genuine })).resolves.toMatchObject({ event: { event: "batch.finished", creditsSpent: 0 }, deliveryId: "d-forged" });
    });

    it("cancels a running batch: it ends canceled and charges only what ran", async () => {
      const sdk = clientFor(target, batchKey);
      const inputs = Array.from({ length: 2000 }, (_, index) => String(8_400_000_000_000_001 + index));
      const batch = await sdk.batches.create({ operation: "event_details_id", inputs });
      const canceled = await batch.cancel();
      expect(canceled.status).toBe("canceled");
      const ended = await batch.wait();
      expect(ended.status).toBe("canceled");
      expect(ended.done).toBeLessThan(2000);
      expect(ended.creditsSpent).toBe(0);
      const listed = await sdk.batches.list({ limit: 5 });
      expect(listed.map((entry) => entry.id)).toContain(batch.id);
      await expect(sdk.batches.get(crypto.randomUUID()).status()).rejects.toBeInstanceOf(NotFoundError);
    });
  });
});
