import { buildOpenApiDocument } from "@/lib/openapi/document";

/**
 * GET /v1/openapi.json — the OpenAPI 3.1 description of /v1. Public: no key, no credits.
 * The document only changes with a deploy, so it is built once and prerendered; Next keeps
 * the Cache-Control set here on a prerendered route (it adds its own only when none is set).
 */
export const dynamic = "force-static";

const document = buildOpenApiDocument();

const headers = {
  "Content-Type": "application/json; charset=utf-8",
  "Cache-Control": "public, max-age=300",
};

export const GET = () => Response.json(document, { headers });
