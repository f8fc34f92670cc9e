import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createV1Router } from "@/lib/api/v1-router";
import { nodeIdFor } from "@/lib/records/node-id";
import { operationById, registry } from "@/lib/operations";
import { eventDataSchema, followersDataSchema, publicationsDataSchema } from "@/lib/records/records";
import { accountDataSchema } from "@/lib/usage/account-schema";
import { operationDocs } from "./docs";
import { buildOpenApiDocument, type OpenApiDocument } from "./document";
import { jsonMedia } from "./responses";
import type { JsonValue } from "./types";

const operationNames = registry.map((entry) => entry.id);
type OperationName = string;
const known = (id: string) => {
  const found = operationById(id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
};

const doc: OpenApiDocument = buildOpenApiDocument();
/** The document as a client sees it: plain JSON, walked without knowing its types. */
const json: unknown = JSON.parse(JSON.stringify(doc));

// ---------------------------------------------------------------------------------------------
// Helpers: JSON pointers and a small JSON Schema checker (no extra packages)

type Json = JsonValue;
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every `$ref` string in a JSON value, with where it sits. */
const collectRefs = (value: unknown, at: string, out: { at: string; ref: string }[] = []) => {
  if (Array.isArray(value)) value.forEach((child, index) => collectRefs(child, `${at}/${index}`, out));
  if (!isObject(value)) return out;
  for (const [key, child] of Object.entries(value)) {
    if (key === "$ref" && typeof child === "string") out.push({ at, ref: child });
    else collectRefs(child, `${at}/${key}`, out);
  }
  return out;
};

/** Resolves a local `#/a/b` pointer, or undefined. */
const resolvePointer = (root: unknown, ref: string): unknown => {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
};

const resolveSchema = (schema: Json): JsonObject => {
  if (!isObject(schema)) throw new Error("schema is not an object");
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const target = resolvePointer(json, ref);
  if (!isObject(target)) throw new Error(`unresolved ${ref}`);
  return resolveSchema(target);
};

const KNOWN_KEYWORDS = new Set([
  "$ref", "type", "properties", "required", "additionalProperties", "propertyNames", "items",
  "anyOf", "allOf", "oneOf", "enum", "const", "pattern", "format", "minimum", "maximum",
  "minLength", "maxLength", "default", "description", "title", "examples",
]);
const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const SUBSCHEMA_LISTS = ["anyOf", "allOf", "oneOf"] as const;

/** Structural problems of one JSON Schema: unknown keywords, bad types, bad regexes, … */
const schemaProblems = (schema: Json, at: string): string[] => {
  if (typeof schema === "boolean") return [];
  if (!isObject(schema)) return [`${at}: not a schema`];
  const problems: string[] = [];
  for (const key of Object.keys(schema)) if (!KNOWN_KEYWORDS.has(key)) problems.push(`${at}: unknown keyword ${key}`);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const type of types) if (typeof type !== "string" || !JSON_TYPES.has(type)) problems.push(`${at}: bad type ${String(type)}`);
  if (schema.pattern !== undefined) {
    try {
      new RegExp(String(schema.pattern), "u");
    } catch {
      problems.push(`${at}: pattern does not compile`);
    }
  }
  for (const key of ["minimum", "maximum", "minLength", "maxLength"]) {
    if (schema[key] !== undefined && typeof schema[key] !== "number") problems.push(`${at}: ${key} not a number`);
  }
  if (schema.enum !== undefined && (!Array.isArray(schema.enum) || schema.enum.length === 0)) {
    problems.push(`${at}: enum must be a non-empty array`);
  }
  const properties = schema.properties;
  if (properties !== undefined) {
    if (!isObject(properties)) problems.push(`${at}: properties not an object`);
    else for (const [name, child] of Object.entries(properties)) problems.push(...schemaProblems(child, `${at}/properties/${name}`));
  }
  if (schema.required !== undefined) {
    const names = isObject(properties) ? Object.keys(properties) : [];
    if (!Array.isArray(schema.required)) problems.push(`${at}: required not an array`);
    else for (const name of schema.required) if (typeof name !== "string" || !names.includes(name)) problems.push(`${at}: required ${String(name)} is not a property`);
  }
  for (const key of ["items", "additionalProperties", "propertyNames"] as const) {
    const child = schema[key];
    if (child !== undefined) problems.push(...schemaProblems(child, `${at}/${key}`));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) problems.push(`${at}: ${key} must be a non-empty array`);
    else list.forEach((child, index) => problems.push(...schemaProblems(child, `${at}/${key}/${index}`)));
  }
  if (typeof schema.$ref === "string" && resolvePointer(json, schema.$ref) === undefined) problems.push(`${at}: unresolved ${schema.$ref}`);
  return problems;
};

const typeOf = (value: Json): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;

const matchesType = (value: Json, type: Json): boolean =>
  type === "number" ? typeof value === "number" : typeOf(value) === type;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Validation errors of a value against a schema: the keywords this document uses. */
const validate = (value: Json, rawSchema: Json, at = "$"): string[] => {
  const schema = resolveSchema(rawSchema);
  const errors: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => matchesType(value, type))) errors.push(`${at}: expected ${types.join("|")}`);
  }
  if (schema.const !== undefined && value !== schema.const) errors.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${at}: not in enum`);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((option) => validate(value, option, at).length === 0)) {
    errors.push(`${at}: matches no anyOf branch`);
  }
  if (typeof value === "string") {
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) errors.push(`${at}: pattern`);
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) errors.push(`${at}: too long`);
    if (schema.format === "uuid" && !UUID.test(value)) errors.push(`${at}: not a uuid`);
    if (schema.format === "uri" && !URL.canParse(value)) errors.push(`${at}: not a uri`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push(`${at}: below minimum`);
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push(`${at}: above maximum`);
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    const items = schema.items;
    value.forEach((item, index) => errors.push(...validate(item, items, `${at}[${index}]`)));
  }
  if (isObject(value)) errors.push(...validateObject(value, schema, at));
  return errors;
};

const validateObject = (value: JsonObject, schema: JsonObject, at: string): string[] => {
  const errors: string[] = [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) if (typeof name === "string" && !(name in value)) errors.push(`${at}.${name}: missing`);
  }
  for (const [name, child] of Object.entries(value)) {
    const propertySchema = properties[name];
    if (propertySchema !== undefined) errors.push(...validate(child, propertySchema, `${at}.${name}`));
    else if (schema.additionalProperties === false) errors.push(`${at}.${name}: not allowed`);
    else if (isObject(schema.additionalProperties)) errors.push(...validate(child, schema.additionalProperties, `${at}.${name}`));
  }
  return errors;
};

const operation = (name: OperationName) => {
  const get = doc.paths[known(name).path]?.get;
  if (get === undefined) throw new Error(`no GET ${known(name).path}`);
  return get;
};

/** data of an operation's 200 example. */
const successData = (name: OperationName): unknown => {
  const value = jsonMedia(operation(name).responses["200"])?.examples?.success?.value;
  return isObject(value) ? value.data : undefined;
};

const ALL_STATUSES = ["200", "400", "401", "402", "403", "404", "429", "500"];

// ---------------------------------------------------------------------------------------------

describe("OpenAPI document for /v1", () => {
  it("is OpenAPI 3.1.0, version 1.0.0", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.title).toBe("Social Lookup API");
  });

  it("survives a JSON round trip unchanged", () => {
    expect(json).toEqual(doc);
  });

  it("describes the four operations at the contract's paths, as GET", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/v1/eventsite/event_details",
        "/v1/eventsite/event_details_id",
        "/v1/pinsite/followers",
        "/v1/jobsite/get_user_publications",
        "/v1/account",
        "/v1/openapi.json",
        "/v1/batches",
        "/v1/batches/{id}",
        "/v1/batches/{id}/pause",
        "/v1/batches/{id}/resume",
        "/v1/batches/{id}/cancel",
        "/v1/batches/{id}/results",
      ].sort(),
    );
    for (const name of operationNames) {
      const get = operation(name);
      expect(get.operationId).toBe(name);
      expect(get.summary).toBe(known(name).summary);
      expect(get["x-credits-cost"]).toBe(known(name).costCredits);
      expect(get.description).toContain(`${known(name).costCredits} credit`);
    }
  });

  it("resolves every $ref within the document", () => {
    const refs = collectRefs(json, "#");
    expect(refs.length).toBeGreaterThan(50);
    const unresolved = refs.filter(({ ref }) => resolvePointer(json, ref) === undefined);
    expect(unresolved).toEqual([]);
  });

  it("leaves no zod-local $defs refs behind", () => {
    expect(collectRefs(json, "#").filter(({ ref }) => !ref.startsWith("#/components/"))).toEqual([]);
  });
});

describe("security", () => {
  it("declares the bearer JWT scheme", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
  });

  it("requires it on every lookup and not on the document itself", () => {
    for (const name of operationNames) expect(operation(name).security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths["/v1/openapi.json"]?.get?.security).toEqual([]);
  });
});

describe("parameters", () => {
  const queryParameters = (name: OperationName) => operation(name).parameters.filter((param) => param.in === "query");
  const params = (name: OperationName) => Object.fromEntries(queryParameters(name).map((param) => [param.name, param]));

  it("event_details takes a required url", () => {
    expect(params("event_details")).toMatchObject({ url: { in: "query", required: true } });
    expect(Object.keys(params("event_details"))).toEqual(["url"]);
  });

  it("event_details_id takes a required event_id", () => {
    expect(Object.keys(params("event_details_id"))).toEqual(["event_id"]);
    expect(params("event_details_id").event_id?.required).toBe(true);
  });

  it("followers takes optional userid, node_id and cursor and states the rule", () => {
    const followersParams = params("followers");
    expect(Object.keys(followersParams)).toEqual(["userid", "node_id", "cursor"]);
    for (const param of Object.values(followersParams)) expect(param.required).toBe(false);
    expect(operation("followers").description).toContain("Missing required parameter: userid");
  });

  it("get_user_publications takes a required urn and an integer page ≥ 1, default 1", () => {
    const publicationParams = params("get_user_publications");
    expect(publicationParams.urn?.required).toBe(true);
    expect(publicationParams.page).toMatchObject({ required: false, schema: { type: "integer", minimum: 1, default: 1 }, example: 1 });
  });

  it("gives every parameter a description and an example its own schema accepts", () => {
    for (const name of operationNames) {
      for (const param of operation(name).parameters) {
        expect(param.description.length).toBeGreaterThan(0);
        expect(validate(param.example, param.schema)).toEqual([]);
      }
    }
  });

  it("lists the same parameters the pipeline reads", () => {
    for (const spec of registry) {
      expect(queryParameters(spec.id as OperationName).map((param) => param.name)).toEqual(spec.params.map((param) => param.name));
    }
  });

  it("documents the request Cache-Control of every lookup, and the freshness headers of its 200", () => {
    for (const name of operationNames) {
      const header = operation(name).parameters.find((param) => param.in === "header");
      expect(header).toMatchObject({ name: "Cache-Control", required: false });
      expect(header?.description).toMatch(/max-age=<seconds>.*no-cache/);
      expect(Object.keys(operation(name).responses["200"]?.headers ?? {})).toEqual(expect.arrayContaining(["X-Cache", "X-Data-As-Of", "Age"]));
    }
  });
});

describe("responses", () => {
  it("every operation answers 200, 400, 401, 402, 404, 429 and 500", () => {
    for (const name of operationNames) expect(Object.keys(operation(name).responses).sort()).toEqual(ALL_STATUSES);
  });

  it("error envelopes fix code to the status and list the exact messages", () => {
    const messagesOf = (name: OperationName, status: string) => {
      const response = operation(name).responses[status];
      const schema = response ? resolveSchema(jsonMedia(response)?.schema ?? {}) : {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      expect(properties.code).toMatchObject({ const: Number(status) });
      expect(properties.data).toEqual({ type: "null" });
      return isObject(properties.message) ? properties.message.enum : undefined;
    };
    expect(messagesOf("event_details", "400")).toEqual(["Missing required parameter: url", "Invalid parameter: url"]);
    expect(messagesOf("event_details_id", "400")).toEqual(["Missing required parameter: event_id", "Invalid parameter: event_id"]);
    expect(messagesOf("followers", "400")).toEqual([
      "Missing required parameter: userid",
      "Invalid parameter: userid",
      "Invalid parameter: node_id",
      "Invalid parameter: cursor",
    ]);
    expect(messagesOf("get_user_publications", "400")).toEqual([
      "Missing required parameter: urn",
      "Invalid parameter: urn",
      "Invalid parameter: page",
    ]);
    for (const name of operationNames) {
      expect(messagesOf(name, "401")).toEqual(["apiKey is null", "apiKey is invalid"]);
      expect(messagesOf(name, "402")).toEqual(["apiKey quota is not enough"]);
      expect(messagesOf(name, "404")).toEqual([known(name).notFoundMessage]);
      expect(messagesOf(name, "429")).toEqual(["qps limit exceeded"]);
      expect(messagesOf(name, "500")).toEqual(["Internal server error"]);
    }
  });

  it("every example validates against its response schema", () => {
    for (const name of operationNames) {
      for (const [status, response] of Object.entries(operation(name).responses)) {
        const media = jsonMedia(response);
        if (!media) throw new Error(`${name} ${status} has no JSON body`);
        const examples = Object.values(media.examples ?? {});
        expect(examples.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const example of examples) expect(validate(example.value, media.schema), `${name} ${status}`).toEqual([]);
      }
    }
  });

  it("success examples are records the API's own zod schemas accept", () => {
    expect(eventDataSchema.safeParse(successData("event_details")).success).toBe(true);
    expect(eventDataSchema.safeParse(successData("event_details_id")).success).toBe(true);
    expect(followersDataSchema.safeParse(successData("followers")).success).toBe(true);
    expect(publicationsDataSchema.safeParse(successData("get_user_publications")).success).toBe(true);
  });

  it("example node ids use the connector's encoding", () => {
    const page = followersDataSchema.parse(successData("followers"));
    expect(page.node_id).toBe(nodeIdFor("2000000002"));
    for (const entry of page.followers) expect(entry.node.id).toBe(nodeIdFor(entry.node.entityId));
  });

  it("sends X-Request-Id everywhere, credit and rate headers once authenticated, Retry-After on 429", () => {
    for (const name of operationNames) {
      const responses = operation(name).responses;
      for (const [status, response] of Object.entries(responses)) {
        const headerNames = Object.keys(response.headers ?? {});
        expect(headerNames).toContain("X-Request-Id");
        if (status === "401") continue;
        // 403 comes before the rate limit: credit headers (0 charged), no rate headers.
        if (status === "403") {
          expect(headerNames).toEqual(["X-Request-Id", "X-Credits-Cost", "X-Credits-Charged", "X-Credits-Remaining"]);
          continue;
        }
        expect(headerNames).toEqual(expect.arrayContaining([
          "X-Credits-Cost", "X-Credits-Charged", "X-Credits-Remaining",
          "RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
        ]));
        expect(headerNames.includes("Retry-After")).toBe(status === "429");
      }
    }
  });
});

describe("component schemas", () => {
  it("are structurally valid JSON Schema", () => {
    const problems = Object.entries(doc.components.schemas).flatMap(([id, schema]) => schemaProblems(schema, id));
    expect(problems).toEqual([]);
  });

  it("header schemas are structurally valid", () => {
    const problems = Object.entries(doc.components.headers).flatMap(([name, header]) => schemaProblems(header.schema, name));
    expect(problems).toEqual([]);
  });

  it("Event has exactly the contract's fields, in order", () => {
    const event = doc.components.schemas.Event;
    expect(isObject(event?.properties) ? Object.keys(event.properties) : []).toEqual([
      "stats", "event_id", "start_date", "start_time", "end_date", "end_time", "local_formatted_time",
      "title", "location_text", "lat", "lng", "details", "source", "tags", "has_tickets", "hosts",
      "related_events", "responded_count", "cover_image_url", "location_place", "location_from_details",
      "is_canceled",
    ]);
  });

  it("are generated from the zod schemas (Event matches z.toJSONSchema)", () => {
    const generated = z.toJSONSchema(eventDataSchema, { target: "draft-2020-12" });
    expect(JSON.stringify(generated.$defs?.Event).replaceAll("#/$defs/", "#/components/schemas/")).toBe(
      JSON.stringify(doc.components.schemas.Event),
    );
  });
});

describe("operationDocs()", () => {
  it("gives the console each operation's path, cost and parameters with examples", () => {
    const docs = operationDocs();
    expect(docs.map((entry) => entry.name)).toEqual(operationNames);
    for (const entry of docs) {
      expect(entry.path).toBe(known(entry.name).path);
      expect(entry.costCredits).toBe(known(entry.name).costCredits);
      expect(entry.parameters.map((param) => param.name)).toEqual(
        operation(entry.name).parameters.filter((param) => param.in === "query").map((param) => param.name),
      );
    }
    const examples = Object.fromEntries(docs.flatMap((entry) => entry.parameters.map((param) => [param.name, param.example])));
    expect(examples).toMatchObject({
      url: "https://events.demo.test/events/1000000000000001/",
      event_id: "1000000000000001",
      userid: "2000000002",
      urn: "urn:li:member:3000000001",
      page: "1",
    });
  });
});

describe("GET /v1/account", () => {
  const account = () => {
    const get = doc.paths["/v1/account"]?.get;
    if (get === undefined) throw new Error("no GET /v1/account");
    return get;
  };

  it("is listed, free, and needs the bearer key", () => {
    expect(account()).toMatchObject({ operationId: "account", security: [{ bearerAuth: [] }], parameters: [], "x-credits-cost": 0 });
    expect(account().description).toContain("no usage record");
  });

  it("answers 200, 401, 403, 429 and 500 only: no parameters, nothing to charge, nothing to find", () => {
    expect(Object.keys(account().responses).sort()).toEqual(["200", "401", "403", "429", "500"]);
  });

  it("describes the key's figures and its example validates against the schema and the zod schema", () => {
    const schema = doc.components.schemas.AccountKey;
    expect(isObject(schema?.properties) ? Object.keys(schema.properties) : []).toEqual([
      "id", "name", "credits_remaining", "credits_granted", "qps_limit", "daily_credit_cap",
      "credits_spent_today", "credits_spent_this_month", "refill", "nextRefillAt", "pool", "cap", "budget",
      "credits_spendable", "limited_by",
    ]);
    for (const [status, response] of Object.entries(account().responses)) {
      const media = jsonMedia(response);
      if (!media) throw new Error(`account ${status} has no JSON body`);
      for (const example of Object.values(media.examples ?? {})) expect(validate(example.value, media.schema), status).toEqual([]);
    }
    const value = jsonMedia(account().responses["200"])?.examples?.success?.value;
    expect(accountDataSchema.safeParse(isObject(value) ? value.data : undefined).success).toBe(true);
  });

  it("keeps the 401 and 429 messages of the contract", () => {
    const messagesOf = (status: string) => {
      const response = account().responses[status];
      const schema = response ? resolveSchema(jsonMedia(response)?.schema ?? {}) : {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      return isObject(properties.message) ? properties.message.enum : undefined;
    };
    expect(messagesOf("401")).toEqual(["apiKey is null", "apiKey is invalid"]);
    expect(messagesOf("429")).toEqual(["qps limit exceeded"]);
    expect(Object.keys(account().responses["429"]?.headers ?? {})).toContain("Retry-After");
  });
});

describe("GET /v1/openapi.json", () => {
  it("serves the document as JSON, cacheable for 5 minutes", async () => {
    const router = createV1Router(registry, {
      services: () => Promise.reject(new Error("the document needs no services")),
      openApiDocument: buildOpenApiDocument,
    });
    const query = new URLSearchParams();
    const answer = await router.answer({ method: "GET", pathname: "/v1/openapi.json", query, authorization: null, ifNoneMatch: null, clientAddress: "127.0.0.1" });
    expect(answer.status).toBe(200);
    expect(answer.headers["Content-Type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers["Cache-Control"]).toBe("public, max-age=300");
    expect(JSON.parse(answer.body)).toEqual(json);
  });
});
