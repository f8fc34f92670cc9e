import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { registry } from "@/lib/operations";
import { stampOperation } from "@/tests/support/stamp-operation";
import { createV1Router, etagMatches, type V1Request } from "./v1-router";

/**
 * Routing only: which answer a /v1 path and method get. The lookups themselves run against real
 * servers in tests/api; here the services never start (they fail), which is itself an answer the
 * router must give as the contract's 500 envelope.
 */
/** The registry test's operation from one module (tests/support/stamp-operation.ts). */
const extra = stampOperation;

const router = createV1Router([...registry, extra], {
  services: () => Promise.reject(new Error("no services in this test")),
  openApiDocument: () => buildOpenApiDocument([...registry, extra]),
});

const ask = (method: string, pathname: string, extraFields: Partial<V1Request> = {}) =>
  router.answer({ method, pathname, query: new URLSearchParams(), authorization: null, ifNoneMatch: null, clientAddress: "127.0.0.1", ...extraFields });

const envelope = (body: string) => JSON.parse(body) as { code: number; message: string; data: unknown; requestId: string };

describe("the /v1 router", () => {
  it("routes every registry operation, an injected one included, to the pipeline", async () => {
    for (const operation of [...registry, extra]) {
      for (const path of [operation.path, `${operation.path}/`]) {
        const answer = await ask("GET", path);
        // The services failed to start: the pipeline's one 500, never a 404.
        expect(answer.status, path).toBe(500);
        expect(answer.resource).toBe("operation");
        expect(envelope(answer.body)).toMatchObject({ code: 500, message: "Internal server error", data: null });
        expect(answer.headers["X-Request-Id"]).toBe(envelope(answer.body).requestId);
      }
    }
  });

  it("answers other methods on an operation and /v1/account with 405 and Allow: GET, HEAD included", async () => {
    for (const path of [extra.path, "/v1/account", "/v1/pinsite/followers"]) {
      for (const method of ["HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]) {
        const answer = await ask(method, path);
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.headers.Allow).toBe("GET");
        expect(envelope(answer.body).message).toBe("Method not allowed");
        expect(answer.headers["Content-Type"]).toBe("application/json; charset=utf-8");
        expect(answer.headers["Cache-Control"]).toBe("no-store");
      }
    }
  });

  it("answers unknown /v1 paths with the 404 envelope whatever the method", async () => {
    for (const path of ["/v1", "/v1/", "/v1/philately", "/v1/philately/get_stamp/x", "/v1/PHILATELY/GET_STAMP"]) {
      for (const method of ["GET", "POST"]) {
        const answer = await ask(method, path);
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(envelope(answer.body)).toMatchObject({ code: 404, message: "Not found", data: null });
      }
    }
  });

  it("serves the OpenAPI document for GET and HEAD with a weak ETag, 304 on a match, 405 otherwise", async () => {
    const get = await ask("GET", "/v1/openapi.json");
    expect(get.status).toBe(200);
    expect(get.resource).toBe("openapi");
    const etag = get.headers.ETag ?? "";
    expect(etag).toMatch(/^W\/"/);
    expect((await ask("HEAD", "/v1/openapi.json")).status).toBe(200);
    const notModified = await ask("GET", "/v1/openapi.json", { ifNoneMatch: etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBe("");
    const post = await ask("POST", "/v1/openapi.json");
    expect(post.status).toBe(405);
    expect(post.headers.Allow).toBe("GET, HEAD");
  });

  it("compares entity tags weakly, in lists, and honours *", () => {
    expect(etagMatches('W/"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('"x", W/"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches("*", 'W/"abc"')).toBe(true);
    expect(etagMatches('"abd"', 'W/"abc"')).toBe(false);
    expect(etagMatches(null, 'W/"abc"')).toBe(false);
  });
});
