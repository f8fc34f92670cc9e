import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CLIENT_ADDRESS_HEADER } from "@/lib/auth/client-ip";
import { embeddedInRun, createKeyWithCli, randomSecret, type ApiTarget, type IssuedKey } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";
import { paths } from "./http";
import { rawGet } from "./raw-http";

/**
 * The front under the configuration a server is started with, on a server of its own (embedded
 * database): HOST (where it listens), CORS_ALLOWED_ORIGINS (browser pages allowed to use a key),
 * and the default TRUSTED_PROXY_HOPS=0, under which the client address is the socket peer — so
 * rotating X-Forwarded-For buys no fresh sign-in budget and the audit log keeps the real address.
 * (The shared servers of the suite run with TRUSTED_PROXY_HOPS=1, as behind a load balancer.)
 */
const HOST = "127.0.0.2";
const ALLOWED_ORIGIN = "https://app.example.test";
const TOO_MANY_ATTEMPTS = /^Too many sign-in attempts\. Try again in \d+ minutes?\.$/;
const FOLLOWERS = `${paths.followers}?userid=2000000002`;
/** The administrator startOwnServer makes: `<label>@example.test`. */
const ADMIN_EMAIL = "front-config@example.test";

let target: ApiTarget;
let key: IssuedKey;

beforeAll(async () => {
  // Its server runs on the embedded database: in the run that covers it (API_DATABASES).
  if (!embeddedInRun) return;
  target = await startOwnServer({
    label: "front-config",
    host: HOST,
    env: { CORS_ALLOWED_ORIGINS: ALLOWED_ORIGIN },
    beforeStart: async (server) => {
      key = await createKeyWithCli(server, "front-config", { credits: 1000, qps: 100 });
    },
  });
}, 420_000);

afterAll(() => stopOwnServer(target));

// ---------------------------------------------------------------------------------------------
// Sign-in as a browser does it (CSRF token, then the credentials callback)

const cookiePairs = (response: Response): string[] =>
  response.headers.getSetCookie().map((line) => line.split(";")[0] ?? "").filter((pair) => pair.includes("="));

const signInAttempt = async (email: string, password: string, forwardedFor: string): Promise<{ error: string | null; cookie: string | null }> => {
  const headers = { "X-Forwarded-For": forwardedFor, [CLIENT_ADDRESS_HEADER]: forwardedFor.split(",")[0] ?? "" };
  const csrfResponse = await fetch(`${target.baseUrl}/api/auth/csrf`, { headers });
  const csrfCookies = cookiePairs(csrfResponse);
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
  const response = await fetch(`${target.baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded", Cookie: csrfCookies.join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${target.baseUrl}/keys`, json: "true" }),
  });
  const { url } = (await response.json()) as { url?: string };
  const session = cookiePairs(response).filter((pair) => pair.startsWith("next-auth.session-token"));
  return {
    error: url ? new URL(url, target.baseUrl).searchParams.get("error") : null,
    cookie: session.length > 0 ? session.join("; ") : null,
  };
};

/** A different made-up address each time, in the forms a spoofing client would use. */
const forgedAddress = (index: number): string => `198.51.${Math.floor(index / 250)}.${index % 250}, 203.0.113.${index % 250}`;

describe("HOST", () => {
  it.runIf(embeddedInRun)("binds the server to the configured address only", async () => {
    expect((await fetch(`${target.baseUrl}/api/health`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${target.port}/api/health`)).rejects.toThrow();
    await expect(fetch(`http://[::1]:${target.port}/api/health`)).rejects.toThrow();
  });

  // The suite's shared servers run with HOST unset: localhost, where `localhost` may resolve to
  // ::1 first (then a server on 127.0.0.1 alone refuses the URL it printed).
  it.each(inject("apiTargets"))("unset: the $kind server prints http://localhost:PORT and answers it on 127.0.0.1 and on [::1]", async (shared) => {
    // The server's JSON line that says where it listens: its `url`.
    const readyLines = fs
      .readFileSync(shared.logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{") && line.includes('"msg":"Ready on '))
      .map((line) => (JSON.parse(line) as { url?: string }).url);
    expect(readyLines.at(-1)).toBe(`http://localhost:${shared.port}`);
    for (const loopback of ["127.0.0.1", "[::1]"]) {
      const answer = await fetch(`http://${loopback}:${shared.port}/api/health`);
      expect([loopback, answer.status]).toEqual([loopback, 200]);
    }
  });
});

describe.runIf(embeddedInRun)("CORS_ALLOWED_ORIGINS", () => {
  it("answers a listed origin's preflight for an operation and lets it read the answer and its credit headers", async () => {
    const preflight = await rawGet(target.baseUrl, FOLLOWERS, {
      method: "OPTIONS",
      headers: { Origin: ALLOWED_ORIGIN, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(ALLOWED_ORIGIN);
    expect(preflight.headers["access-control-allow-methods"]).toBe("GET");
    expect(String(preflight.headers["access-control-allow-headers"]).toLowerCase()).toBe("authorization");
    expect(preflight.headers.vary).toBe("Origin");

    const answer = await rawGet(target.baseUrl, FOLLOWERS, { headers: { Authorization: `Bearer ${key.token}`, Origin: ALLOWED_ORIGIN } });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe(ALLOWED_ORIGIN);
    expect(String(answer.headers["access-control-expose-headers"])).toContain("X-Credits-Remaining");
    expect(answer.headers.vary).toBe("Accept-Encoding, Origin");
  });

  it("still refuses every other origin, and a preflight for another method", async () => {
    const other = await rawGet(target.baseUrl, FOLLOWERS, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
    });
    expect(other.status).toBe(405);
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    const post = await rawGet(target.baseUrl, FOLLOWERS, {
      method: "OPTIONS",
      headers: { Origin: ALLOWED_ORIGIN, "Access-Control-Request-Method": "POST" },
    });
    expect(post.status).toBe(405);
    expect(post.headers["access-control-allow-origin"]).toBeUndefined();
    const answer = await rawGet(target.baseUrl, FOLLOWERS, { headers: { Authorization: `Bearer ${key.token}`, Origin: "https://evil.example" } });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
    expect(answer.headers.vary).toBe("Accept-Encoding, Origin");
  });
});

describe.runIf(embeddedInRun)("the client address without a trusted proxy (TRUSTED_PROXY_HOPS=0)", () => {
  let adminCookie: string;

  beforeAll(async () => {
    const password = target.env.ADMIN_PASSWORD ?? "";
    const signedIn = await signInAttempt(ADMIN_EMAIL, password, "203.0.113.200");
    expect(signedIn.error).toBeNull();
    adminCookie = signedIn.cookie ?? "";
    expect(adminCookie).not.toBe("");
  });

  it("the audit log records the socket peer, not an address the client wrote", async () => {
    const created = await fetch(`${target.baseUrl}/api/keys`, {
      method: "POST",
      headers: {
        Cookie: adminCookie,
        "Content-Type": "application/json",
        "X-Forwarded-For": "198.51.100.66, 203.0.113.9",
        // The header the front hands the address to the app in: a client's copy is replaced.
        [CLIENT_ADDRESS_HEADER]: "198.51.100.77",
      },
      body: JSON.stringify({ name: "forwarded", credits: 0, qpsLimit: 1 }),
    });
    expect(created.status).toBe(201);
    const keyId = ((await created.json()) as { key: { id: string } }).key.id;
    const audit = await fetch(`${target.baseUrl}/api/admin/audit?limit=20`, { headers: { Cookie: adminCookie } });
    const entries = ((await audit.json()) as { entries: { action: string; targetId: string; ip: string }[] }).entries;
    const entry = entries.find((item) => item.action === "key.create" && item.targetId === keyId);
    expect(entry?.ip).toMatch(/^127\.\d+\.\d+\.\d+$/);
  });

  it("a key's address allowlist sees the socket peer: a spoofed X-Forwarded-For neither opens nor closes it", async () => {
    const issue = async (allowedAddresses: string[]) => {
      const created = await fetch(`${target.baseUrl}/api/keys`, {
        method: "POST",
        headers: { Cookie: adminCookie, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "allowlisted", credits: 10, qpsLimit: 10, operations: ["followers"], allowedAddresses }),
      });
      expect(created.status).toBe(201);
      return ((await created.json()) as { token: string }).token;
    };
    const followers = async (token: string, forwardedFor: string) => {
      const answer = await rawGet(target.baseUrl, FOLLOWERS, { headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": forwardedFor } });
      return { status: answer.status, body: JSON.parse(answer.body.toString()) as { message: string } };
    };
    const elsewhere = await issue(["198.51.100.66"]);
    expect(await followers(elsewhere, "198.51.100.66")).toMatchObject({ status: 403, body: { message: "apiKey is not allowed from this address" } });
    const here = await issue(["127.0.0.0/8", "::1"]);
    expect((await followers(here, "198.51.100.66")).status).toBe(200);
  });

  it("refuses a bad range when a key is created, saying what is wrong", async () => {
    const created = await fetch(`${target.baseUrl}/api/keys`, {
      method: "POST",
      headers: { Cookie: adminCookie, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "bad range", credits: 0, qpsLimit: 1, allowedAddresses: ["10.0.0.0/33"] }),
    });
    expect(created.status).toBe(400);
    const body = (await created.json()) as { error: { message: string } };
    expect(body.error.message).toBe('allowedAddresses: "10.0.0.0/33" has a bad prefix length: after "/" give 0 to 32.');
  });

  it("rotating X-Forwarded-For does not buy a fresh per-address sign-in budget (100 failures per 15 min)", async () => {
    // Each attempt names a different unknown account (no per-account limit applies) and
    // forges a different address; all of them come from this one socket peer.
    const errors: (string | null)[] = [];
    for (let batch = 0; batch < 104; batch += 4) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, index) =>
          signInAttempt(`spray-${batch + index}-${randomSecret(6).toLowerCase()}@example.test`, "Password123!", forgedAddress(batch + index)),
        ),
      );
      errors.push(...answers.map((answer) => answer.error));
    }
    const refused = errors.filter((error) => error !== null && TOO_MANY_ATTEMPTS.test(error));
    const ordinary = errors.filter((error) => error === "Invalid email or password.");
    expect(ordinary.length + refused.length, `every attempt failed one way or the other: ${JSON.stringify(errors.slice(0, 3))}`).toBe(errors.length);
    expect(ordinary.length, "failures counted before the limit").toBeLessThanOrEqual(100);
    expect(refused.length, "attempts refused by the per-address limit").toBeGreaterThanOrEqual(4);
    // Once refused, always refused: no forged address reopens the budget.
    const firstRefusal = errors.findIndex((error) => error !== null && TOO_MANY_ATTEMPTS.test(error));
    expect(errors.slice(firstRefusal + 4).every((error) => error !== null && TOO_MANY_ATTEMPTS.test(error))).toBe(true);
  }, 240_000);
});
