import { messages } from "@/lib/api/errors";
import type { JsonObject, OperationObject } from "./types";
import { AUTHENTICATED_HEADERS, errorResponse, EXAMPLE_REQUEST_ID, headerRefs, sharedErrorMessages, unauthorizedResponse } from "./responses";
import { schemaRef } from "./json-schema";

/** The two /v1 paths that are not lookups: this document and the key's account. */
export const OPENAPI_PATH = "/v1/openapi.json";

export const openApiOperation: OperationObject = {
  operationId: "openapi_document",
  summary: "This OpenAPI document",
  description: "The OpenAPI 3.1 description of /v1. No key needed, costs nothing.",
  tags: ["meta"],
  security: [],
  parameters: [],
  responses: {
    "200": {
      description: "The OpenAPI 3.1 document.",
      headers: headerRefs(["Cache-Control"]),
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["openapi", "info", "paths", "components"],
            properties: {
              openapi: { const: "3.1.0" },
              info: { type: "object" },
              paths: { type: "object" },
              components: { type: "object" },
            },
          },
        },
      },
    },
    "431": {
      description:
        "The request's header fields exceed the HTTP server's 16 KB limit; the server answers before any route runs, with no body.",
    },
  },
};

export const ACCOUNT_PATH = "/v1/account";

const exampleAccount: JsonObject = {
  key: {
    id: "key_Xb7Q2mN4pL9c",
    name: "nightly-sync",
    credits_remaining: 8421,
    credits_granted: 10000,
    qps_limit: 5,
    daily_credit_cap: 500,
    credits_spent_today: 128,
    credits_spent_this_month: 1579,
    refill: { credits: 10000, interval: "monthly", dayOfMonth: 1, mode: "top_up_to" },
    nextRefillAt: "2026-12-01T00:00:00.000Z",
    pool: null,
    cap: null,
    budget: null,
    credits_spendable: 372,
    limited_by: "daily_cap",
  },
};

/** Free and read-only: no credits, no usage record; checks 401 then 429 like a lookup. */
export const accountOperation: OperationObject = {
  operationId: "account",
  summary: "The calling key's credits and spend",
  description:
    "The key's name, remaining and granted credits, per-second limit, daily credit cap and credits spent today and this month " +
    "(UTC; reservations of requests still running included), so a script can check before it spends. " +
    "Free: nothing is charged and no usage record is written. It counts against the key's per-second limit like any call.",
  tags: ["account"],
  security: [{ bearerAuth: [] }],
  parameters: [],
  responses: {
    "200": {
      description: "Success: code 0 and the key's figures. Charges nothing.",
      headers: headerRefs(AUTHENTICATED_HEADERS),
      content: {
        "application/json": {
          schema: schemaRef("AccountEnvelope"),
          examples: {
            success: {
              summary: "a key with a daily cap",
              value: { code: 0, message: "success", data: exampleAccount, requestId: EXAMPLE_REQUEST_ID },
            },
          },
        },
      },
    },
    "401": unauthorizedResponse(),
    "403": errorResponse(
      "The key may not be used from this client address (its allowlist). Every key may read its account whatever operations it may call.",
      "ErrorEnvelope403",
      403,
      [messages.addressNotAllowed],
      ["X-Request-Id"],
    ),
    "429": errorResponse(
      "The key's per-second limit is exceeded. Retry after Retry-After seconds.",
      "ErrorEnvelope429",
      429,
      sharedErrorMessages[429],
      ["X-Request-Id", "RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
    ),
    "500": errorResponse(
      "Any other failure; details stay in the server log under the requestId.",
      "ErrorEnvelope500",
      500,
      sharedErrorMessages[500],
      ["X-Request-Id"],
    ),
  },
  "x-credits-cost": 0,
};
