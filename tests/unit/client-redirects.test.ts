import http from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "@/clients/typescript/src/cli/main";
import { RedirectRefusedError, SocialLookup } from "@/clients/typescript/src/index";

/**
 * The TypeScript SDK (and the command line, which calls through it) never carries the key to
 * another origin: a redirect there is refused with RedirectRefusedError, before anything is sent
 * to it; a redirect within the origin is followed, key and all. Real sockets: one server on
 * 127.0.0.1 redirects to another on 127.0.0.2, which records whatever reaches it.
 */
type Seen = { method: string; url: string; authorization: string | undefined; body: string };

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

const envelope = (data: unknown) => JSON.stringify({ code: 0, message: "success", data, requestId: "00000000-0000-4000-8000-000000000000" });

/** A server on `host` that records each request and answers as `answer` says. */
const serve = async (host: string, answer: (request: Seen, origin: string) => { status: number; headers?: Record<string, string>; body?: string }) => {
  const seen: Seen[] = [];
  let origin = "";
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const entry = { method: request.method ?? "", url: request.url ?? "", authorization: request.headers.authorization, body };
      seen.push(entry);
      const reply = answer(entry, origin);
      response.writeHead(reply.status, { "Content-Type": "application/json", ...reply.headers }).end(reply.body ?? "");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { origin, seen };
};

const elsewhere = () => serve("127.0.0.2", () => ({ status: 200, body: envelope({ key: { id: "stolen" } }) }));

describe("the TypeScript SDK and redirects", () => {
  it("refuses a 302 from 127.0.0.1 to 127.0.0.2: the other host never sees a request, let alone the key", async () => {
    const other = await elsewhere();
    const api = await serve("127.0.0.1", () => ({ status: 302, headers: { Location: `${other.origin}/v1/account` } }));
    const client = new SocialLookup({ apiKey: "sk_secret-token", baseUrl: api.origin, maxRetries: 2 });
    const failure = await client.account().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RedirectRefusedError);
    expect(failure).toMatchObject({ status: 302, location: other.origin });
    expect(String((failure as Error).message)).toContain(`redirect to another origin, ${other.origin}`);
    expect(String((failure as Error).message)).not.toContain("sk_secret-token");
    expect(other.seen).toEqual([]);
    // Refused once, not retried.
    expect(api.seen).toHaveLength(1);
  });

  it("refuses a 307 of a batch's creation to another port of the same host: neither the key nor the inputs leave", async () => {
    const other = await serve("127.0.0.1", () => ({ status: 202, body: envelope({ id: "b1" }) }));
    const api = await serve("127.0.0.1", () => ({ status: 307, headers: { Location: `${other.origin}/v1/batches` } }));
    const client = new SocialLookup({ apiKey: "sk_secret-token", baseUrl: api.origin });
    await expect(client.batches.create({ operation: "event_details_id", inputs: ["1000000000000001"] })).rejects.toBeInstanceOf(RedirectRefusedError);
    expect(other.seen).toEqual([]);
    expect(api.seen[0]?.body).toContain("1000000000000001");
  });

  it("refuses an upgrade to https as another origin too, naming where the server is", async () => {
    const api = await serve("127.0.0.1", (_request, origin) => ({ status: 301, headers: { Location: `${origin.replace("http:", "https:")}/v1/account` } }));
    await expect(new SocialLookup({ apiKey: "k", baseUrl: api.origin }).account()).rejects.toThrow(/set baseUrl to the address the server is really at/);
  });

  it("follows redirects within the origin with the key, a 303 after a POST as a GET", async () => {
    const api = await serve("127.0.0.1", (request) => {
      if (request.url === "/v1/account") return { status: 308, headers: { Location: "/v1/account/" } };
      if (request.url === "/v1/account/") return { status: 200, body: envelope({ key: { id: "k1" } }) };
      if (request.method === "POST") return { status: 303, headers: { Location: "/v1/batches/b1" } };
      return { status: 200, body: envelope({ id: "b1", status: "queued" }) };
    });
    const client = new SocialLookup({ apiKey: "sk_token", baseUrl: api.origin });
    expect((await client.account()).data).toEqual({ key: { id: "k1" } });
    await client.batches.create({ operation: "event_details_id", inputs: ["1"] });
    expect(api.seen.map((request) => [request.method, request.url, request.authorization])).toEqual([
      ["GET", "/v1/account", "Bearer sk_token"],
      ["GET", "/v1/account/", "Bearer sk_token"],
      ["POST", "/v1/batches", "Bearer sk_token"],
      ["GET", "/v1/batches/b1", "Bearer sk_token"],
    ]);
    expect(api.seen[3]?.body).toBe("");
  });

  it("the command line stops with exit 1 and one error line; the other host sees nothing", async () => {
    const other = await elsewhere();
    const api = await serve("127.0.0.1", () => ({ status: 302, headers: { Location: `${other.origin}/v1/account` } }));
    let stderr = "";
    const io = {
      stdout: new PassThrough(),
      stderr: new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          stderr += chunk.toString();
          done();
        },
      }),
      stdin: new PassThrough(),
      env: { SOCIAL_LOOKUP_API_KEY: "sk_secret-token", SOCIAL_LOOKUP_BASE_URL: api.origin },
    };
    expect(await main(["account"], io)).toBe(1);
    expect(stderr).toBe(`error: the server at ${api.origin} answered 302 with a redirect to another origin, ${other.origin}: not followed, so the API key never leaves ${api.origin}; set baseUrl to the address the server is really at\n`);
    expect(other.seen).toEqual([]);
  });
});
