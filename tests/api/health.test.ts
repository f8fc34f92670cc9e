import { describe, expect, inject, it } from "vitest";
import type { ApiTarget } from "./harness";
import { call, paths } from "./http";

/** The unauthenticated endpoints: health of the instance, and the OpenAPI document (docs/decisions.md "Versioning"). */
const targets = inject("apiTargets");

describe.each(targets)("$kind server", (target: ApiTarget) => {
  describe("GET /api/health", () => {
    it("answers 200 with the database up and no Redis configured", async () => {
      const answer = await call(target, "/api/health");
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: "ok", database: "ok", redis: "absent" });
    });

    it("reports no upstream provider for a store-only instance (DATA_SOURCE=store)", async () => {
      const answer = await call(target, "/api/health");
      const report = answer.body as { upstream?: unknown } | undefined;
      if (report?.upstream !== undefined) expect(report.upstream).toBe("absent");
    });
  });

  describe("GET /v1/openapi.json", () => {
    it("serves an OpenAPI 3.1.0 document, version 1.0.0, without a key", async () => {
      const answer = await call(target, "/v1/openapi.json");
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(answer.body).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" } });
    });

    it("describes the GET of every operation", async () => {
      const answer = await call(target, "/v1/openapi.json");
      const document = answer.body as { paths?: Record<string, { get?: unknown }> } | undefined;
      for (const path of Object.values(paths)) {
        expect(document?.paths?.[path]?.get, path).toBeDefined();
      }
    });
  });
});
