import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeRequest, type RequestFacts } from "./request-facts";

const seen: RequestFacts[] = [];
let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const observed = observeRequest(request, response, { area: "v1", pathname: "/v1/x" }, [(facts) => seen.push(facts)]);
    observed.setAnswerFacts({ keyId: "key_1", operation: "followers" });
    // The /v1 answers hand their headers to writeHead alone, as lib/front/front.ts does.
    if (request.url === "/array") response.writeHead(200, ["X-Request-Id", "rid-array", "Content-Type", "text/plain"]);
    else response.writeHead(200, { "X-Request-Id": "rid-object", "Content-Type": "text/plain" });
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("observeRequest", () => {
  it("reads the X-Request-Id given to writeHead (an object or a flat list) and tells the observers once", async () => {
    await (await fetch(`${base}/object`)).text();
    await (await fetch(`${base}/array`)).text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.map((facts) => [facts.requestId, facts.status, facts.keyId, facts.operation])).toEqual([
      ["rid-object", 200, "key_1", "followers"],
      ["rid-array", 200, "key_1", "followers"],
    ]);
  });
});
