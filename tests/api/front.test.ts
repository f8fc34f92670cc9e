import zlib from "node:zlib";
import { describe, expect, inject, it } from "vitest";
import type { ApiTarget } from "./harness";
import { paths } from "./http";
import { rawGet, requestHead, wireExchange, type RawAnswer } from "./raw-http";

/**
 * The process front (server.ts, lib/front) on the production servers: the request forms /v1
 * never answered well through Next (TRACE, CONNECT, absolute-form, oversized and malformed heads),
 * HEAD, compression (docs/decisions.md "Transport"), the OpenAPI document's ETag, and CORS closed by
 * default. tests/api/front-config.test.ts covers what needs a server of its own configuration.
 */
const targets = inject("apiTargets");

const FOLLOWERS = `${paths.followers}?userid=2000000002`;
const PUBLICATIONS = `${paths.publications}?urn=urn:li:member:3000000001`;
const EVENT = `${paths.eventById}?event_id=1000000000000001`;
const OPENAPI = "/v1/openapi.json";
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g;

const envelopeOf = (answer: RawAnswer): { code: number; message: string; data: unknown; requestId: string } => {
  expect(answer.headers["content-type"]).toBe(JSON_CONTENT_TYPE);
  const body = JSON.parse(answer.body.toString("utf8")) as { code: number; message: string; data: unknown; requestId: string };
  expect(Object.keys(body)).toEqual(["code", "message", "data", "requestId"]);
  expect(answer.headers["x-request-id"]).toBe(body.requestId);
  return body;
};

const creditsLeft = (answer: RawAnswer): number => Number(answer.headers["x-credits-remaining"]);

/** The same body with the request's own id blanked: the one part two answers never share. */
const withoutRequestId = (text: string): string => text.replace(UUID, "<request-id>");

describe.each(targets)("the process front on $kind", (target: ApiTarget) => {
  const auth = { Authorization: `Bearer ${target.keys.front.token}` };
  const host = new URL(target.baseUrl).host;

  describe("request forms /v1 does not use", () => {
    it("answers TRACE on an operation with the 405 envelope and on a page with a plain 405, echoing nothing", async () => {
      const secret = "trace-me-not";
      const onOperation = await wireExchange(target.baseUrl, requestHead(`TRACE ${FOLLOWERS} HTTP/1.1`, { Host: host, ...auth, "X-Secret": secret }));
      expect(onOperation.status).toBe(405);
      expect(onOperation.headers.get("allow")).toBe("GET");
      expect(onOperation.headers.get("content-type")).toBe(JSON_CONTENT_TYPE);
      expect(onOperation.body).toContain('"message":"Method not allowed"');
      const onPage = await wireExchange(target.baseUrl, requestHead("TRACE /keys HTTP/1.1", { Host: host, "X-Secret": secret }));
      expect(onPage.status).toBe(405);
      expect(onPage.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      for (const answer of [onOperation, onPage]) expect(answer.body).not.toContain(secret);
    });

    it("refuses CONNECT with a plain 405 and closes the connection: no tunnel", async () => {
      const answer = await wireExchange(target.baseUrl, `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n`);
      expect(answer.statusLine).toBe("HTTP/1.1 405 Method Not Allowed");
      expect(answer.headers.get("connection")).toBe("close");
      expect(answer.body).toBe("Method Not Allowed\n");
    });

    it("answers an absolute-form /v1 request line by its path, never with a redirect to the host it names", async () => {
      const answer = await wireExchange(target.baseUrl, requestHead(`GET http://other.example${FOLLOWERS} HTTP/1.1`, { Host: "other.example" }));
      expect(answer.status).toBe(401);
      expect(answer.headers.has("location")).toBe(false);
      expect(answer.body).toContain('"message":"apiKey is null"');
      const unknown = await wireExchange(target.baseUrl, requestHead("GET http://other.example/v1/nowhere HTTP/1.1", { Host: "other.example" }));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toContain('"message":"Not found"');
    });

    it("refuses an absolute-form request line for a page with a plain 400 instead of Next's redirect to that host", async () => {
      const answer = await wireExchange(target.baseUrl, requestHead("GET http://other.example/keys HTTP/1.1", { Host: "other.example" }));
      expect(answer.status).toBe(400);
      expect(answer.headers.has("location")).toBe(false);
      expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    });

    it("takes a request head up to 16 KB and answers 431 above it (node:http's limit, set by the front)", async () => {
      const within = await wireExchange(target.baseUrl, requestHead(`GET ${FOLLOWERS} HTTP/1.1`, { Host: host, ...auth, "X-Pad": "a".repeat(15_500) }));
      expect(within.status).toBe(200);
      const over = await wireExchange(target.baseUrl, requestHead(`GET ${FOLLOWERS} HTTP/1.1`, { Host: host, ...auth, "X-Pad": "a".repeat(16_500) }));
      expect(over.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
      expect(over.body).toBe("");
    });

    it("answers malformed request lines with a plain 400, before any route", async () => {
      for (const head of ["HELLO\r\n\r\n", `GET ${FOLLOWERS} HTTP/9.9\r\nHost: ${host}\r\n\r\n`, `GET /v1/pinsite/followers HTTP/1.1\r\nHost ${host}\r\n\r\n`]) {
        const answer = await wireExchange(target.baseUrl, head);
        expect(answer.status, JSON.stringify(head)).toBe(400);
        expect(answer.body).not.toMatch(/<html|stack|at \w+ \(/i);
      }
    });

    it("redirects a doubled slash under /v1 to the clean path on the same host", async () => {
      const answer = await wireExchange(target.baseUrl, requestHead("GET /v1//pinsite//followers?userid=1 HTTP/1.1", { Host: "other.example" }));
      expect(answer.status).toBe(308);
      expect(answer.headers.get("location")).toBe("/v1/pinsite/followers?userid=1");
    });
  });

  describe("HEAD", () => {
    it("on an operation is the 405 envelope's head (Allow: GET) and charges nothing", async () => {
      const before = creditsLeft(await rawGet(target.baseUrl, FOLLOWERS, { headers: auth }));
      for (const path of [FOLLOWERS, PUBLICATIONS, EVENT, "/v1/account"]) {
        const answer = await rawGet(target.baseUrl, path, { method: "HEAD", headers: auth });
        expect(answer.status, path).toBe(405);
        expect(answer.headers.allow).toBe("GET");
        expect(answer.headers["content-type"]).toBe(JSON_CONTENT_TYPE);
        expect(answer.body.length).toBe(0);
      }
      const after = await rawGet(target.baseUrl, FOLLOWERS, { headers: auth });
      // The only charge in between is the GET that reads the balance (2 credits).
      expect(creditsLeft(after)).toBe(before - 2);
    });

    it("on /v1/openapi.json has GET's status and headers and no body", async () => {
      const get = await rawGet(target.baseUrl, OPENAPI);
      const head = await rawGet(target.baseUrl, OPENAPI, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of ["content-type", "content-length", "etag", "cache-control", "access-control-allow-origin"]) {
        expect(head.headers[name], name).toBe(get.headers[name]);
      }
    });
  });

  describe("compression", () => {
    const compressible = [FOLLOWERS, PUBLICATIONS, EVENT];

    it("gzips /v1 answers over 1 KB when asked, and the decoded JSON is the uncompressed answer byte for byte", async () => {
      for (const path of compressible) {
        const plain = await rawGet(target.baseUrl, path, { headers: auth });
        const gzipped = await rawGet(target.baseUrl, path, { headers: { ...auth, "Accept-Encoding": "gzip, deflate, br;q=0" } });
        expect(plain.status).toBe(200);
        expect(plain.body.length, path).toBeGreaterThan(1024);
        expect(plain.headers["content-encoding"]).toBeUndefined();
        expect(gzipped.headers["content-encoding"]).toBe("gzip");
        expect(Number(gzipped.headers["content-length"])).toBe(gzipped.body.length);
        expect(gzipped.body.length).toBeLessThan(plain.body.length * 0.6);
        for (const answer of [plain, gzipped]) expect(answer.headers.vary).toBe("Accept-Encoding");
        const decoded = zlib.gunzipSync(gzipped.body).toString("utf8");
        expect(withoutRequestId(decoded)).toBe(withoutRequestId(plain.body.toString("utf8")));
        // Same charge and headers as the uncompressed answer.
        expect(gzipped.headers["x-credits-charged"]).toBe(plain.headers["x-credits-charged"]);
        expect(JSON.parse(decoded).requestId).toBe(gzipped.headers["x-request-id"]);
      }
    });

    it("gzips /v1/openapi.json, decoding to the very bytes of the uncompressed document", async () => {
      const plain = await rawGet(target.baseUrl, OPENAPI);
      const gzipped = await rawGet(target.baseUrl, OPENAPI, { headers: { "Accept-Encoding": "gzip" } });
      expect(gzipped.headers["content-encoding"]).toBe("gzip");
      expect(zlib.gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
      expect(gzipped.headers.etag).toBe(plain.headers.etag);
    });

    it("sends small answers and unaccepted encodings as they are", async () => {
      const small = await rawGet(target.baseUrl, FOLLOWERS, { headers: { "Accept-Encoding": "gzip" } });
      expect(small.status).toBe(401);
      expect(small.headers["content-encoding"]).toBeUndefined();
      expect(small.headers.vary).toBeUndefined();
      envelopeOf(small);
      for (const acceptEncoding of ["identity", "gzip;q=0", "br;q=0, gzip;q=0", "compress"]) {
        const answer = await rawGet(target.baseUrl, FOLLOWERS, { headers: { ...auth, "Accept-Encoding": acceptEncoding } });
        expect(answer.status).toBe(200);
        expect(answer.headers["content-encoding"], acceptEncoding).toBeUndefined();
        expect(envelopeOf(answer).code).toBe(0);
      }
    });
  });

  describe("GET /v1/openapi.json validators", () => {
    it("carries an ETag and answers 304 without a body to a matching If-None-Match", async () => {
      const first = await rawGet(target.baseUrl, OPENAPI);
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
      for (const ifNoneMatch of [etag, etag.replace(/^W\//, ""), `"other", ${etag}`, "*"]) {
        const again = await rawGet(target.baseUrl, OPENAPI, { headers: { "If-None-Match": ifNoneMatch, "Accept-Encoding": "gzip" } });
        expect(again.status, ifNoneMatch).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
        expect(again.headers.vary).toBe("Accept-Encoding");
      }
      const stale = await rawGet(target.baseUrl, OPENAPI, { headers: { "If-None-Match": '"not-this-one"' } });
      expect(stale.status).toBe(200);
      expect(stale.body.equals(first.body)).toBe(true);
    });
  });

  describe("CORS, closed by default", () => {
    const origin = "https://tools.example";

    it("lets any origin read /v1/openapi.json, preflight included", async () => {
      const answer = await rawGet(target.baseUrl, OPENAPI, { headers: { Origin: origin } });
      expect(answer.status).toBe(200);
      expect(answer.headers["access-control-allow-origin"]).toBe("*");
      const preflight = await rawGet(target.baseUrl, OPENAPI, {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "GET" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe("*");
      expect(preflight.headers["access-control-allow-methods"]).toBe("GET, HEAD");
    });

    it("gives pages of other origins no way to call an operation with a key", async () => {
      const preflight = await rawGet(target.baseUrl, FOLLOWERS, {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
      });
      expect(preflight.status).toBe(405);
      expect(envelopeOf(preflight).message).toBe("Method not allowed");
      const answer = await rawGet(target.baseUrl, FOLLOWERS, { headers: { ...auth, Origin: origin } });
      expect(answer.status).toBe(200);
      for (const response of [preflight, answer]) {
        expect(Object.keys(response.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
      }
    });
  });

  describe("Content-Security-Policy", () => {
    const PAGES = ["/", "/signin", "/api-docs", "/no-such-page"];

    const scriptSources = (answer: RawAnswer): string[] => {
      const policy = String(answer.headers["content-security-policy"] ?? "");
      const directive = policy.split(";").map((part) => part.trim()).find((part) => part.startsWith("script-src "));
      return (directive ?? "").split(/\s+/).slice(1);
    };
    const nonceOf = (answer: RawAnswer): string => {
      const nonces = scriptSources(answer).flatMap((source) => /^'nonce-(.+)'$/.exec(source)?.[1] ?? []);
      expect(nonces).toHaveLength(1);
      return nonces[0] ?? "";
    };
    const scriptTags = (answer: RawAnswer): string[] => answer.body.toString("utf8").match(/<script\b[^>]*>/g) ?? [];

    it("gives every page a fresh script nonce with 'strict-dynamic', never 'unsafe-inline', and puts it on each of its scripts", async () => {
      const nonces: string[] = [];
      for (const path of [...PAGES, ...PAGES]) {
        const answer = await rawGet(target.baseUrl, path);
        expect(answer.status, path).toBe(path === "/no-such-page" ? 404 : 200);
        const sources = scriptSources(answer);
        expect(sources, path).toContain("'strict-dynamic'");
        expect(sources, path).not.toContain("'unsafe-inline'");
        expect(sources, path).not.toContain("'unsafe-eval'");
        const nonce = nonceOf(answer);
        // 128 random bits, base64.
        expect(Buffer.from(nonce, "base64")).toHaveLength(16);
        nonces.push(nonce);
        const tags = scriptTags(answer);
        expect(tags.length, `${path}: scripts`).toBeGreaterThan(0);
        for (const tag of tags) expect(tag, path).toContain(` nonce="${nonce}"`);
      }
      expect(new Set(nonces).size).toBe(nonces.length);
    });

    it("replaces a policy the client sends: the nonce on the page is the server's", async () => {
      const forged = "Zm9yZ2VkLW5vbmNlLTEyMw==";
      const answer = await rawGet(target.baseUrl, "/signin", {
        headers: {
          "Content-Security-Policy": `script-src 'nonce-${forged}'`,
          "Content-Security-Policy-Report-Only": `script-src 'nonce-${forged}'`,
        },
      });
      expect(answer.status).toBe(200);
      expect(nonceOf(answer)).not.toBe(forged);
      expect(answer.body.toString("utf8")).not.toContain(forged);
      for (const tag of scriptTags(answer)) expect(tag).toContain(` nonce="${nonceOf(answer)}"`);
    });

    it("sends the nonce-less policy with /v1 answers: scripts of this origin only, none inline", async () => {
      for (const [path, status] of [[OPENAPI, 200], [FOLLOWERS, 401]] as const) {
        const answer = await rawGet(target.baseUrl, path);
        expect(answer.status, path).toBe(status);
        expect(scriptSources(answer), path).toEqual(["'self'"]);
        expect(answer.headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
      }
    });
  });

  it("answers its own trivial ping without Next (the benchmark's ceiling)", async () => {
    const answer = await rawGet(target.baseUrl, "/_front/ping");
    expect(answer.status).toBe(200);
    expect(answer.body.toString("utf8")).toBe('{"ok":true}');
    // Next would have added its security headers.
    expect(answer.headers["content-security-policy"]).toBeUndefined();
  });
});
