import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { demoFixtures } from "@/lib/demo/fixtures";
import { METRIC_PREFIX } from "@/lib/metrics/registry";
import { lintExposition } from "@/tests/support/prom-lint";
import { consoleClient, type Session } from "./console-client";
import { halfClosedExchange, requestHead, sendThenReset } from "./raw-http";
import { embeddedInRun, delay, freePort, serverPid, type ApiTarget } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * GET /metrics on the production servers: who may scrape it (METRICS_TOKEN on the main port, the
 * METRICS_PORT listener, nothing by default, METRICS=off), and the lookup counters against the
 * usage ledger — after lookups on every channel (/v1, the console, a batch, an MCP tool call),
 * requests_total, request_duration_seconds and credits_charged_total moved exactly as the ledger
 * did, refusals_total by reason, and no key id or input in any label.
 */
const targets = inject("apiTargets");

const FOLLOWERS = "/v1/pinsite/followers";
const FOLLOWER_USER = "2000000002";
const UNKNOWN_USER = "2999999999";

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The exposition read the way a scraper reads it: one sample per line, comments left out. */
const samplesOf = (exposition: string): Sample[] =>
  exposition.split("\n").flatMap((line): Sample[] => {
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) return [];
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1] ?? "", pair[2] ?? ""]));
    return [{ name: match[1] ?? "", labels, value: Number(match[3]) }];
  });

/** name + labels → value, for deltas. */
const seriesOf = (exposition: string): Map<string, number> =>
  new Map(samplesOf(exposition).map((sample) => [`${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`, sample.value]));

const scrape = async (url: string, token: string | undefined): Promise<Response> =>
  fetch(url, { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });

const exposition = async (target: ApiTarget): Promise<string> => {
  const answer = await scrape(`${target.baseUrl}/metrics`, target.env.METRICS_TOKEN);
  expect(answer.status).toBe(200);
  return answer.text();
};

/** What moved between two scrapes, of one metric, by the labels asked for. */
const delta = (before: string, after: string, name: string, by: readonly string[]): Map<string, number> => {
  const earlier = seriesOf(before);
  const moved = new Map<string, number>();
  for (const sample of samplesOf(after)) {
    if (sample.name !== name) continue;
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    const change = sample.value - (earlier.get(key) ?? 0);
    if (change === 0) continue;
    const group = by.map((label) => sample.labels[label] ?? "").join(" ");
    moved.set(group, (moved.get(group) ?? 0) + change);
  }
  return moved;
};

/** Until two scrapes a second apart show the same lookup counters: nothing else is running. */
const quiet = async (target: ApiTarget): Promise<string> => {
  let previous = await exposition(target);
  for (let attempt = 0; attempt < 30; attempt += 1) {
    await delay(1000);
    const next = await exposition(target);
    if (delta(previous, next, `${METRIC_PREFIX}requests_total`, ["channel"]).size === 0) return next;
    previous = next;
  }
  throw new Error("the server never went quiet: something else is looking up");
};

type LedgerEvent = { channel: string; operation: string; status: number; creditsCharged: number; requests: number };

const ledgerOf = async (site: ReturnType<typeof consoleClient>, session: Session, keyId: string): Promise<LedgerEvent[]> => {
  const answer = await site.api(session, "GET", `/api/usage/events?keyId=${keyId}&limit=200`);
  expect(answer.status, answer.text).toBe(200);
  return (answer.body as { events: LedgerEvent[] }).events;
};

const sumBy = (events: readonly LedgerEvent[], key: (event: LedgerEvent) => string, value: (event: LedgerEvent) => number): Map<string, number> => {
  const sums = new Map<string, number>();
  for (const event of events) sums.set(key(event), (sums.get(key(event)) ?? 0) + value(event));
  for (const [group, sum] of sums) if (sum === 0) sums.delete(group);
  return sums;
};

const v1 = (target: ApiTarget, token: string | null, path: string, init: RequestInit = {}): Promise<Response> =>
  fetch(`${target.baseUrl}${path}`, {
    ...init,
    headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), "Content-Type": "application/json", ...(init.headers ?? {}) },
  });

describe.each(targets)("GET /metrics on the $kind server", (target: ApiTarget) => {
  const token = target.env.METRICS_TOKEN;
  const metricsPort = target.env.METRICS_PORT;

  it("answers 401 with WWW-Authenticate to a missing or wrong token, and the exposition to the right one", async () => {
    for (const sent of [undefined, "wrong-token-of-sixteen-chars", `${token ?? ""}x`]) {
      const refused = await scrape(`${target.baseUrl}/metrics`, sent);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await refused.text()).not.toContain(METRIC_PREFIX);
    }
    const answer = await scrape(`${target.baseUrl}/metrics`, token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();
    // What an operator's CI runs on a scrape: `promtool check metrics` (its rules, written out).
    expect(lintExposition(text)).toEqual([]);
    const samples = samplesOf(text);
    const names = new Set(samples.map((sample) => sample.name));
    expect(names).toContain("nodejs_eventloop_lag_seconds");
    expect(samples.find((sample) => sample.name === `${METRIC_PREFIX}build_info`)?.labels).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: expect.stringMatching(/^v\d+\.\d+\.\d+$/) });
    expect(samples.find((sample) => sample.name === `${METRIC_PREFIX}ready`)?.value).toBe(1);
    // Every request the front answered, by area and status class (this scrape's 401s among them).
    expect(samples.some((sample) => sample.name === `${METRIC_PREFIX}http_requests_total` && sample.labels.area === "metrics" && sample.labels.status_class === "4xx")).toBe(true);
  });

  it("serves /metrics on METRICS_PORT (the token asked for there too), the probes, and nothing else", async () => {
    const base = `http://127.0.0.1:${metricsPort ?? ""}`;
    expect((await scrape(`${base}/metrics`, undefined)).status).toBe(401);
    expect((await scrape(`${base}/metrics`, "wrong-token-of-sixteen-chars")).status).toBe(401);
    const answer = await scrape(`${base}/metrics`, token);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain(`${METRIC_PREFIX}requests_total`);
    expect((await scrape(`${base}/v1/account`, token)).status).toBe(404);
    expect((await scrape(`${base}/`, token)).status).toBe(404);
    // /readyz there: the status for anyone, each check's detail for the token.
    const summary = await scrape(`${base}/readyz`, undefined);
    expect(summary.status).toBe(200);
    expect(await summary.json()).toEqual({ status: "ok", failing: [] });
    const detailed = await scrape(`${base}/readyz`, token);
    expect(((await detailed.json()) as { checks?: Record<string, unknown> }).checks).toHaveProperty("database");
    expect((await scrape(`${base}/livez`, undefined)).status).toBe(200);
  });

  describe("the lookup counters", () => {
    const site = consoleClient(target);
    let analyst: Session;
    let key: { id: string; token: string };
    let poor: { id: string; token: string };

    beforeAll(async () => {
      analyst = await site.analyst(await site.admin(), "metrics", 10_000);
      key = await site.consoleKey(analyst, 1000, 1000);
      // 1 credit, 1 a second: a followers page (2 credits) is a 402, the next in the same second a 429.
      const created = await site.api(analyst, "POST", "/api/keys", { name: "metrics poor", credits: 1, qpsLimit: 1 });
      expect(created.status, created.text).toBe(201);
      const body = created.body as { key: { id: string }; token: string };
      poor = { id: body.key.id, token: body.token };
    });

    it("move with every channel exactly as the usage ledger does: requests by status, latencies, credits", async () => {
      const before = await quiet(target);

      // /v1: found, found, not found, a bad parameter.
      const answers: Response[] = [];
      for (const path of [`${FOLLOWERS}?userid=${FOLLOWER_USER}`, `${FOLLOWERS}?userid=${FOLLOWER_USER}`, `${FOLLOWERS}?userid=${UNKNOWN_USER}`, `${FOLLOWERS}?userid=`]) {
        const answer = await v1(target, key.token, path);
        await answer.text();
        answers.push(answer);
      }
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 400]);

      // The console: the analyst's console key, in-process.
      const consoleAnswer = await site.api(analyst, "GET", `/api/console/lookup/followers?userid=${FOLLOWER_USER}`);
      expect(consoleAnswer.status, consoleAnswer.text).toBe(200);

      // An MCP tool call.
      const agent = new Client({ name: "metrics-test", version: "1.0.0" });
      await agent.connect(new StreamableHTTPClientTransport(new URL("/mcp", target.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${key.token}` } } }));
      const called = await agent.callTool({ name: "followers", arguments: { userid: FOLLOWER_USER } });
      expect(called.isError ?? false).toBe(false);
      await agent.close();

      // A small batch: two events found, one not.
      const inputs = [demoFixtures.eventIds[0] ?? "", demoFixtures.eventIds[1] ?? "", "1000000000000999"];
      const created = await v1(target, key.token, "/v1/batches", { method: "POST", body: JSON.stringify({ operation: "event_details_id", inputs }) });
      expect(created.status).toBe(202);
      const batchId = ((await created.json()) as { data: { id: string } }).data.id;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const view = ((await (await v1(target, key.token, `/v1/batches/${batchId}`)).json()) as { data: { status: string } }).data;
        if (view.status === "done") break;
        if (Date.now() > deadline) throw new Error(`batch ${batchId} did not finish: ${JSON.stringify(view)}`);
        await delay(200);
      }

      // The /v1 answers' delivery is counted as their connections close; the ledger is the console's.
      const ledger = await ledgerOf(site, analyst, key.id);
      let after = await exposition(target);
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const counted = [...delta(before, after, `${METRIC_PREFIX}requests_total`, ["channel"]).values()].reduce((sum, count) => sum + count, 0);
        if (counted >= ledger.reduce((sum, event) => sum + event.requests, 0)) break;
        await delay(100);
        after = await exposition(target);
      }

      const requests = delta(before, after, `${METRIC_PREFIX}requests_total`, ["channel", "operation", "status"]);
      const ledgerRequests = sumBy(ledger, (event) => `${event.channel} ${event.operation} ${event.status}`, (event) => event.requests);
      expect(Object.fromEntries(requests)).toEqual(Object.fromEntries(ledgerRequests));
      expect(Object.fromEntries(ledgerRequests)).toMatchObject({
        "api followers 200": 2,
        "api followers 404": 1,
        "api followers 400": 1,
        "console followers 200": 1,
        "mcp followers 200": 1,
        "batch event_details_id 200": 2,
        "batch event_details_id 404": 1,
      });

      const durations = delta(before, after, `${METRIC_PREFIX}request_duration_seconds_count`, ["channel", "operation"]);
      expect(Object.fromEntries(durations)).toEqual(Object.fromEntries(sumBy(ledger, (event) => `${event.channel} ${event.operation}`, (event) => event.requests)));

      const credits = delta(before, after, `${METRIC_PREFIX}credits_charged_total`, ["channel", "operation"]);
      const ledgerCredits = sumBy(ledger, (event) => `${event.channel} ${event.operation}`, (event) => event.creditsCharged);
      expect(Object.fromEntries(credits)).toEqual(Object.fromEntries(ledgerCredits));
      // …and what the answers said they charged.
      const v1Charged = answers.reduce((sum, answer) => sum + Number(answer.headers.get("x-credits-charged") ?? 0), 0);
      expect(credits.get("api followers")).toBe(v1Charged);
      expect(delta(before, after, `${METRIC_PREFIX}refusals_total`, ["channel", "reason"]).size).toBe(0);
    }, 150_000);

    it("counts refusals by reason: 401 without a key (no usage record), 402 without the credits, 429 over the rate, 403 outside the key's operations", async () => {
      const scoped = target.keys.accessScoped;
      await delay(1100);
      const before = await quiet(target);
      expect((await v1(target, null, `${FOLLOWERS}?userid=${FOLLOWER_USER}`)).status).toBe(401);
      expect((await v1(target, "not-a-key", `${FOLLOWERS}?userid=${FOLLOWER_USER}`)).status).toBe(401);
      expect((await v1(target, poor.token, `${FOLLOWERS}?userid=${FOLLOWER_USER}`)).status).toBe(402);
      expect((await v1(target, poor.token, `${FOLLOWERS}?userid=${FOLLOWER_USER}`)).status).toBe(429);
      // accessScoped may look up followers only (tests/api/harness.ts KEY_PLAN).
      expect((await v1(target, scoped.token, `/v1/eventsite/event_details_id?event_id=${demoFixtures.eventIds[0] ?? ""}`)).status).toBe(403);

      let after = await exposition(target);
      for (let attempt = 0; attempt < 20 && delta(before, after, `${METRIC_PREFIX}requests_total`, ["channel"]).get("api") !== 3; attempt += 1) {
        await delay(100);
        after = await exposition(target);
      }
      expect(Object.fromEntries(delta(before, after, `${METRIC_PREFIX}refusals_total`, ["channel", "reason"]))).toEqual({ "api 401": 2, "api 402": 1, "api 429": 1, "api 403": 1 });
      // The 401s have no usage record, so no request count; the others one each, as their ledger.
      expect(Object.fromEntries(delta(before, after, `${METRIC_PREFIX}requests_total`, ["channel", "operation", "status"]))).toEqual({
        "api followers 402": 1,
        "api followers 429": 1,
        "api event_details_id 403": 1,
      });
      const poorLedger = await ledgerOf(site, analyst, poor.id);
      expect(Object.fromEntries(sumBy(poorLedger, (event) => `${event.status}`, (event) => event.requests))).toEqual({ "402": 1, "429": 1 });
    });

    it("counts a /v1 lookup whose client reset the connection as the 499 its usage record becomes, uncharged, and a half-closed one as its 200", async () => {
      const gone = await site.consoleKey(analyst, 1000, 1000);
      const before = await quiet(target);
      const head = requestHead(`GET ${FOLLOWERS}?userid=${FOLLOWER_USER} HTTP/1.1`, { Host: "localhost", Authorization: `Bearer ${gone.token}` });
      await Promise.all(Array.from({ length: 5 }, () => sendThenReset(target.baseUrl, head)));
      const halfClosed = await halfClosedExchange(target.baseUrl, head);
      expect(halfClosed.status).toBe(200);

      // The releases run in the background: until the ledger has its six records in their final state.
      const deadline = Date.now() + 15_000;
      let ledger = await ledgerOf(site, analyst, gone.id);
      while ((ledger.length < 6 || ledger.filter((event) => event.status === 499).length < 5) && Date.now() < deadline) {
        await delay(200);
        ledger = await ledgerOf(site, analyst, gone.id);
      }
      expect(Object.fromEntries(sumBy(ledger, (event) => `${event.channel} ${event.operation} ${event.status}`, (event) => event.requests))).toEqual({
        "api followers 499": 5,
        "api followers 200": 1,
      });
      const after = await exposition(target);
      expect(Object.fromEntries(delta(before, after, `${METRIC_PREFIX}requests_total`, ["channel", "operation", "status"]))).toEqual({
        "api followers 499": 5,
        "api followers 200": 1,
      });
      const charged = ledger.reduce((sum, event) => sum + event.creditsCharged, 0);
      expect(charged).toBe(2);
      expect(delta(before, after, `${METRIC_PREFIX}credits_charged_total`, ["channel", "operation"]).get("api followers")).toBe(charged);
    });

    it("has bounded labels: no key id, token or input value in the exposition", async () => {
      // A lookup of its own first, so the lookup series exist whatever ran before.
      await (await v1(target, key.token, `${FOLLOWERS}?userid=${FOLLOWER_USER}`)).text();
      await delay(200);
      const text = await exposition(target);
      for (const secret of [key.id, key.token, poor.id, poor.token, target.keys.accessScoped.id]) expect(text, secret).not.toContain(secret);
      // Inputs are digits: looked for in the label values (a sample's value may hold any digits).
      const labelValues = samplesOf(text).flatMap((sample) => Object.values(sample.labels));
      for (const input of [FOLLOWER_USER, UNKNOWN_USER, demoFixtures.eventIds[0] ?? "", "1000000000000999"]) {
        expect(labelValues.filter((value) => value.includes(input)), input).toEqual([]);
      }
      const labelNames = new Set(samplesOf(text).filter((sample) => sample.name.startsWith(METRIC_PREFIX)).flatMap((sample) => Object.keys(sample.labels)));
      expect([...labelNames].sort()).toEqual(expect.arrayContaining(["channel", "operation", "status"]));
      for (const name of labelNames) expect(["channel", "operation", "status", "reason", "area", "status_class", "version", "node", "le", "database", "kind", "outcome", "result", "state"]).toContain(name);
    });
  });
});

/** The listening TCP ports of a process group (from /proc), to show what a server opens. */
const listeningPorts = (groupId: number): Set<number> => {
  const inodes = new Set<string>();
  for (const pid of fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== groupId) continue;
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
        if (inode !== undefined) inodes.add(inode);
      }
    } catch {
      // A process that ended meanwhile.
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      // st 0A: LISTEN.
      if (columns[3] === "0A" && inodes.has(columns[9] ?? "")) ports.add(parseInt(columns[1]?.split(":")[1] ?? "0", 16));
    }
  }
  return ports;
};

describe.runIf(embeddedInRun)("GET /metrics closed by default, and with METRICS=off", () => {
  let plain: ApiTarget | undefined;
  let off: ApiTarget | undefined;
  let offMetricsPort = 0;

  beforeAll(async () => {
    offMetricsPort = await freePort();
    [plain, off] = await Promise.all([
      startOwnServer({ label: "metrics-default" }),
      startOwnServer({ label: "metrics-off", env: { METRICS: "off", METRICS_TOKEN: "a-token-of-more-than-sixteen", METRICS_PORT: String(offMetricsPort) } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([stopOwnServer(plain), stopOwnServer(off)]);
  });

  it("without METRICS_TOKEN answers 404 on the main port, as any unknown page, and opens no other listener", async () => {
    if (plain === undefined) throw new Error("no server");
    for (const sent of [undefined, "a-token-of-more-than-sixteen"]) {
      const answer = await scrape(`${plain.baseUrl}/metrics`, sent);
      expect(answer.status).toBe(404);
      expect(await answer.text()).not.toContain(METRIC_PREFIX);
    }
    const groupId = serverPid(plain);
    expect(groupId).not.toBeNull();
    expect([...listeningPorts(groupId ?? -1)]).toEqual([plain.port]);
  });

  it("with METRICS=off answers 404 even with the token, and opens no METRICS_PORT listener", async () => {
    if (off === undefined) throw new Error("no server");
    const answer = await scrape(`${off.baseUrl}/metrics`, "a-token-of-more-than-sixteen");
    expect(answer.status).toBe(404);
    expect(await answer.text()).not.toContain(METRIC_PREFIX);
    await expect(fetch(`http://127.0.0.1:${offMetricsPort}/metrics`)).rejects.toThrow();
    // Lookups still work and are still recorded.
    const health = await fetch(`${off.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });
});
