import type http from "node:http";
import { describe, expect, it } from "vitest";
import type { RequestFacts, RequestObserver } from "./request-facts";
import { requestRoute, requestSpanAttributes, traceRequest } from "./request-span";

/** How a request's span is named: by route, never by a path with ids in it. */
const facts = (overrides: Partial<RequestFacts>): RequestFacts => ({
  area: "v1",
  method: "GET",
  pathname: "/v1/pinsite/followers",
  status: 200,
  latencyMs: 1,
  requestId: "7d0f2c3e-0000-4000-8000-000000000001",
  keyId: "key-1",
  operation: "followers",
  ...overrides,
});

describe("the request span's route", () => {
  it("names a /v1 lookup by its registry path (one trailing slash is the same path)", () => {
    expect(requestRoute(facts({}))).toEqual({ route: "/v1/pinsite/followers", exact: true });
    expect(requestRoute(facts({ pathname: "/v1/pinsite/followers/" })).route).toBe("/v1/pinsite/followers");
  });

  it("names batch resources with {id}, never the id", () => {
    const id = "0b1c2d3e-0000-4000-8000-00000000abcd";
    expect(requestRoute(facts({ pathname: "/v1/batches", operation: "batches" })).route).toBe("/v1/batches");
    expect(requestRoute(facts({ pathname: `/v1/batches/${id}`, operation: "batches" })).route).toBe("/v1/batches/{id}");
    expect(requestRoute(facts({ pathname: `/v1/batches/${id}/results`, operation: "batches" })).route).toBe("/v1/batches/{id}/results");
    expect(requestRoute(facts({ pathname: `/v1/batches/${id}/cancel`, operation: "batches" })).route).toBe("/v1/batches/{id}/cancel");
  });

  it("names a /v1 path outside the registry /v1/*, whatever the client wrote", () => {
    expect(requestRoute(facts({ pathname: "/v1/users/12345/secret-ish", operation: null })).route).toBe("/v1/*");
  });

  it("names console requests by kind and gives them no http.route", () => {
    const route = requestRoute(facts({ area: "console", pathname: "/api/keys/3f1e", operation: null }));
    expect(route).toEqual({ route: "/api/*", exact: false });
    expect(requestRoute(facts({ area: "console", pathname: "/api/auth/callback/oidc" })).route).toBe("/api/auth/*");
    expect(requestRoute(facts({ area: "console", pathname: "/_next/static/chunks/app.js" })).route).toBe("/_next/*");
    expect(requestRoute(facts({ area: "console", pathname: "/batches/3f1e" })).route).toBe("(page)");
    expect(requestSpanAttributes(facts({ area: "console", pathname: "/api/keys/3f1e" }), route)).toMatchObject({
      "url.path": "/api/keys/3f1e",
      "http.route": null,
      "social_lookup.channel": "console",
    });
  });
});

describe("traceRequest with traces off", () => {
  it("hands the front's own observers through unchanged and runs the request once", async () => {
    const observers: RequestObserver[] = [() => undefined];
    const seen: (readonly RequestObserver[] | undefined)[] = [];
    const request = { method: "GET", url: "/v1/pinsite/followers?userid=1", headers: {} } as http.IncomingMessage;
    await traceRequest(request, observers, async (given) => {
      seen.push(given);
    });
    expect(seen).toEqual([observers]);
    expect(seen[0]).toBe(observers);
  });
});

describe("the request span's url.path", () => {
  it("is the request log's path: an admin's looked-up subject is templated, never exported", () => {
    const subject = facts({ area: "console", pathname: "/api/admin/subjects/profile/urn:li:member:3000000001", operation: null, keyId: null });
    const attributes = requestSpanAttributes(subject, requestRoute(subject));
    expect(attributes["url.path"]).toBe("/api/admin/subjects/profile/:subject");
    expect(JSON.stringify(attributes)).not.toContain("3000000001");
  });
});
