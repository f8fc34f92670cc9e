import http from "node:http";
import { parseList } from "structured-headers";
import { expect } from "vitest";
import { z } from "zod";
import type { ApiTarget, IssuedKey } from "./harness";

/**
 * Requests against a target and the contract's assertions on their answers: the envelope
 * (docs/decisions.md "Envelope and headers"), the error messages and their order
 * (docs/api.md "Order of checks"), the credit headers and the record shapes (lib/records/records.ts).
 */
export const paths = {
  eventByUrl: "/v1/eventsite/event_details",
  eventById: "/v1/eventsite/event_details_id",
  followers: "/v1/pinsite/followers",
  publications: "/v1/jobsite/get_user_publications",
} as const;

export type OperationPath = (typeof paths)[keyof typeof paths];

export const costs: Record<OperationPath, number> = {
  [paths.eventByUrl]: 4,
  [paths.eventById]: 4,
  [paths.followers]: 2,
  [paths.publications]: 1,
};

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ENVELOPE_KEYS = ["code", "message", "data", "requestId"];

export type Answer = {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
};

/** Query parameters: a value given as an array is sent once per element (`?a=1&a=2`). */
export type Query = Record<string, string | readonly string[]>;

export const queryString = (query: Query = {}): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of typeof value === "string" ? [value] : value) search.append(name, item);
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export type Auth = IssuedKey | { authorization: string } | null;

const authHeaders = (auth: Auth): Record<string, string> => {
  if (auth === null) return {};
  if ("authorization" in auth) return { Authorization: auth.authorization };
  return { Authorization: `Bearer ${auth.token}` };
};

export const call = async (
  target: ApiTarget,
  path: string,
  options: { auth?: Auth; query?: Query; method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> => {
  const response = await fetch(`${target.baseUrl}${path}${queryString(options.query)}`, {
    method: options.method ?? "GET",
    headers: { ...authHeaders(options.auth ?? null), ...options.headers },
    redirect: "manual",
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: parseJson(text) };
};

/** A request whose path is sent byte for byte (fetch would normalise `%2e%2e` and friends). */
export const rawCall = (target: ApiTarget, rawPath: string, auth: Auth = null): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port: target.port, path: rawPath, method: "GET", headers: authHeaders(auth) },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === "string") headers.set(name, value);
            else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
          }
          resolve({ status: response.statusCode ?? 0, headers, text, body: parseJson(text) });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end();
  });

// ---------------------------------------------------------------------------------------------
// Envelope

const envelopeSchema = z.strictObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown(),
  requestId: z.string(),
});

export type Envelope = z.infer<typeof envelopeSchema>;

/** The envelope common to every /v1 answer: JSON, four keys in order, requestId = X-Request-Id. */
export const expectEnvelope = (answer: Answer): Envelope => {
  expect(answer.headers.get("content-type"), `content-type of a ${answer.status}: ${answer.text.slice(0, 120)}`).toBe(
    JSON_CONTENT_TYPE,
  );
  expect(answer.body, `a JSON body, got: ${answer.text.slice(0, 200)}`).toBeTypeOf("object");
  expect(answer.body).not.toBeNull();
  expect(Object.keys(answer.body as object)).toEqual(ENVELOPE_KEYS);
  const envelope = envelopeSchema.parse(answer.body);
  expect(envelope.requestId).toMatch(UUID_V4);
  expect(answer.headers.get("x-request-id")).toBe(envelope.requestId);
  return envelope;
};

export const expectSuccess = <Schema extends z.ZodType>(answer: Answer, dataSchema: Schema): z.infer<Schema> => {
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const envelope = expectEnvelope(answer);
  expect(envelope.code).toBe(0);
  expect(envelope.message).toBe("success");
  expectFieldOrder(envelope.data, dataSchema);
  return dataSchema.parse(envelope.data);
};

export const expectError = (answer: Answer, status: number, message: string): Envelope => {
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status, body: { code: status, message } });
  const envelope = expectEnvelope(answer);
  expect(envelope.code).toBe(status);
  expect(envelope.message).toBe(message);
  expect(envelope.data).toBeNull();
  return envelope;
};

// ---------------------------------------------------------------------------------------------
// Records: every field of the schema, nothing else, in the contract's order

/**
 * Walks a value along a zod schema and checks every object has exactly the schema's keys, in
 * the schema's order (records.ts declares them in the contract's order). Records of free
 * shape (z.record) are not walked.
 */
export const expectFieldOrder = (value: unknown, schema: z.ZodType, at = "data"): void => {
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    if (value === null || value === undefined) return;
    expectFieldOrder(value, schema.unwrap() as z.ZodType, at);
    return;
  }
  if (schema instanceof z.ZodObject) {
    expect(value, `${at} is an object`).toBeTypeOf("object");
    if (typeof value !== "object" || value === null) return;
    const shape = schema.shape as Record<string, z.ZodType>;
    expect(Object.keys(value), `keys of ${at}`).toEqual(Object.keys(shape));
    for (const [name, fieldSchema] of Object.entries(shape)) {
      expectFieldOrder((value as Record<string, unknown>)[name], fieldSchema, `${at}.${name}`);
    }
    return;
  }
  if (schema instanceof z.ZodArray) {
    expect(Array.isArray(value), `${at} is an array`).toBe(true);
    if (!Array.isArray(value)) return;
    value.forEach((item: unknown, index) => expectFieldOrder(item, schema.element as z.ZodType, `${at}[${index}]`));
  }
};

// ---------------------------------------------------------------------------------------------
// Credits and rate-limit headers

export const header = (answer: Answer, name: string): string | null => answer.headers.get(name);

export const remainingCredits = (answer: Answer): number => {
  const value = header(answer, "x-credits-remaining");
  expect(value, "X-Credits-Remaining").toMatch(/^\d+$/);
  return Number(value);
};

/** The credit headers of an authenticated answer: what it costs, what it charged, what is left. */
export const expectCredits = (
  answer: Answer,
  expected: { cost: number; charged: number; remaining?: number },
): void => {
  expect({
    cost: header(answer, "x-credits-cost"),
    charged: header(answer, "x-credits-charged"),
    ...(expected.remaining === undefined ? {} : { remaining: header(answer, "x-credits-remaining") }),
  }).toEqual({
    cost: String(expected.cost),
    charged: String(expected.charged),
    ...(expected.remaining === undefined ? {} : { remaining: String(expected.remaining) }),
  });
  remainingCredits(answer);
};

/** One item of a RateLimit / RateLimit-Policy Structured Field list, read with a real SF parser. */
export const rateLimitItem = (answer: Answer, name: "ratelimit" | "ratelimit-policy"): { policy: string; params: Record<string, unknown> } => {
  const value = header(answer, name);
  expect(value, name).not.toBeNull();
  const list = parseList(value ?? "");
  expect(list, `${name}: one policy`).toHaveLength(1);
  const [item, params] = list[0] ?? [];
  expect(typeof item, `${name}: the policy is a String item`).toBe("string");
  return { policy: String(item), params: Object.fromEntries(params ?? new Map()) };
};

/** Both dialects: draft-06's three integers and the current draft's two Structured Fields, agreeing. */
export const expectRateLimitHeaders = (answer: Answer, limit: number): void => {
  expect(header(answer, "ratelimit-limit")).toBe(String(limit));
  expect(header(answer, "ratelimit-remaining")).toMatch(/^\d+$/);
  expect(Number(header(answer, "ratelimit-remaining"))).toBeLessThanOrEqual(limit);
  expect(header(answer, "ratelimit-reset")).toMatch(/^[1-9]\d*$/);
  expect(rateLimitItem(answer, "ratelimit-policy")).toEqual({ policy: "per-key", params: { q: limit, w: 1 } });
  expect(rateLimitItem(answer, "ratelimit")).toEqual({
    policy: "per-key",
    params: { r: Number(header(answer, "ratelimit-remaining")), t: Number(header(answer, "ratelimit-reset")) },
  });
};

/**
 * Follows one key's balance through a sequence of answers: each answer must report the last
 * balance minus what it charged. The next expectation starts from what the server reported, so
 * one wrong answer fails one test, not every test after it.
 */
export const creditTracker = (initialCredits: number) => {
  let last = initialCredits;
  return {
    get remaining() {
      return last;
    },
    /** A 200: `cost` charged. */
    charged(answer: Answer, cost: number): void {
      expectCredits(answer, { cost, charged: cost, remaining: last - cost });
      last = remainingCredits(answer);
    },
    /** Any other authenticated answer: nothing charged. */
    free(answer: Answer, cost: number): void {
      expectCredits(answer, { cost, charged: 0, remaining: last });
      last = remainingCredits(answer);
    },
  };
};

/** No key was recognised (401): no credit or rate-limit headers describe any key. */
export const expectNoKeyHeaders = (answer: Answer): void => {
  expect({
    cost: header(answer, "x-credits-cost"),
    charged: header(answer, "x-credits-charged"),
    remaining: header(answer, "x-credits-remaining"),
    limit: header(answer, "ratelimit-limit"),
    policy: header(answer, "ratelimit-policy"),
    rate: header(answer, "ratelimit"),
  }).toEqual({ cost: null, charged: null, remaining: null, limit: null, policy: null, rate: null });
};

export const contractMessages = {
  keyMissing: "apiKey is null",
  keyInvalid: "apiKey is invalid",
  quota: "apiKey quota is not enough",
  qps: "qps limit exceeded",
  eventNotFound: "Event not found",
  userNotFound: "User not found",
  profileNotFound: "Profile not found",
  missing: (name: string) => `Missing required parameter: ${name}`,
  invalid: (name: string) => `Invalid parameter: ${name}`,
} as const;

export const eventUrl = (eventId: string, host = "events.demo.test"): string => `https://${host}/events/${eventId}/`;

export const nodeIdOf = (userId: string): string => Buffer.from(`User:${userId}`, "utf8").toString("base64");
