import { z } from "zod";
import { header, send, type Answer } from "./harness";

/**
 * The fuzz suite's oracle: what /v1/openapi.json (as served by the cluster) says an answer may be.
 * Every answer must be a documented status of its operation, with the JSON envelope that status's
 * schema describes — for errors: code = status, the message one of the documented ones, data null;
 * for 200: the operation's record schema — plus the header facts
 * docs/decisions.md "Envelope and headers" fixes.
 */
type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

const SCHEMAS = "#/components/schemas/";
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ENVELOPE_KEYS = JSON.stringify(["code", "message", "data", "requestId"]);

export type Oracle = {
  /** The problems of one answer to GET `operationPath` (an operation of the document); [] when none. */
  checkOperation(operationPath: string, answer: Answer): string[];
  /** The problems of an answer to a path that is no operation: 404 "Not found" (405 for a wrong method). */
  checkOther(answer: Answer, expected: { status: 404 | 405; message: string }): string[];
  /** The operation's cost (x-credits-cost). */
  costOf(operationPath: string): number;
  /** Paths the document describes. */
  paths: string[];
};

export const loadOracle = async (port: number): Promise<Oracle> => {
  const served = await send(port, "/v1/openapi.json");
  if (served.status !== 200 || !isObject(served.body)) throw new Error(`/v1/openapi.json answered ${served.status}`);
  // zod reads local refs from $defs: the document's component schemas, re-pointed there.
  const document = JSON.parse(JSON.stringify(served.body).replaceAll(SCHEMAS, "#/$defs/")) as JsonObject;
  const components = isObject(document.components) ? document.components : {};
  const defs = isObject(components.schemas) ? components.schemas : {};
  const paths = isObject(document.paths) ? document.paths : {};

  const validators = new Map<string, z.ZodType>();
  const validator = (ref: string): z.ZodType => {
    let found = validators.get(ref);
    if (!found) {
      // The JSON Schema of the document, as zod parses it (semi-experimental in zod, exact for this subset).
      found = z.fromJSONSchema({ $ref: ref, $defs: defs } as Parameters<typeof z.fromJSONSchema>[0]);
      validators.set(ref, found);
    }
    return found;
  };

  const operationOf = (operationPath: string): JsonObject => {
    const item = paths[operationPath];
    const operation = isObject(item) ? item.get : undefined;
    if (!isObject(operation)) throw new Error(`${operationPath} is not in the document`);
    return operation;
  };

  const costOf = (operationPath: string): number => {
    const cost = operationOf(operationPath)["x-credits-cost"];
    if (typeof cost !== "number") throw new Error(`${operationPath} has no x-credits-cost`);
    return cost;
  };

  /** Content type, the four keys in order, requestId = X-Request-Id, a UUID v4. */
  const envelopeProblems = (answer: Answer): string[] => {
    if (answer.status === 0) return [`no answer (${answer.error ?? "?"})`];
    const problems: string[] = [];
    if (answer.status >= 500) problems.push(`a ${answer.status}`);
    if (header(answer, "content-type") !== JSON_CONTENT_TYPE) problems.push(`content-type ${header(answer, "content-type") ?? "none"}`);
    if (!isObject(answer.body)) return [...problems, `not a JSON object: ${answer.text.slice(0, 80)}`];
    if (JSON.stringify(Object.keys(answer.body)) !== ENVELOPE_KEYS) problems.push(`envelope keys ${Object.keys(answer.body).join(",")}`);
    const requestId = answer.body.requestId;
    if (typeof requestId !== "string" || !UUID_V4.test(requestId)) problems.push("requestId is not a UUID v4");
    if (header(answer, "x-request-id") !== requestId) problems.push("X-Request-Id differs from requestId");
    return problems;
  };

  const schemaProblems = (ref: string, body: unknown): string[] => {
    const result = validator(ref).safeParse(body);
    if (result.success) return [];
    return result.error.issues.slice(0, 3).map((issue) => `${ref.replace("#/$defs/", "")}: ${issue.path.join(".") || "(root)"} ${issue.message}`);
  };

  return {
    paths: Object.keys(paths),
    costOf,
    checkOperation: (operationPath, answer) => {
      const problems = envelopeProblems(answer);
      if (answer.status === 0) return problems;
      const operation = operationOf(operationPath);
      const responses = isObject(operation.responses) ? operation.responses : {};
      const response = responses[String(answer.status)];
      const content = isObject(response) && isObject(response.content) ? response.content["application/json"] : undefined;
      const schema = isObject(content) && isObject(content.schema) ? content.schema.$ref : undefined;
      if (typeof schema !== "string") return [...problems, `status ${answer.status} is not documented for ${operationPath}`];
      problems.push(...schemaProblems(schema, answer.body));
      const charged = header(answer, "x-credits-charged");
      if (answer.status === 200) {
        if (charged !== String(costOf(operationPath))) problems.push(`200 charged ${charged ?? "nothing"}, cost ${costOf(operationPath)}`);
      } else if (charged !== null && charged !== "0") {
        problems.push(`a ${answer.status} charged ${charged}`);
      }
      return problems;
    },
    checkOther: (answer, expected) => {
      const problems = envelopeProblems(answer);
      if (answer.status === 0) return problems;
      if (answer.status !== expected.status) problems.push(`status ${answer.status}, expected ${expected.status}`);
      // Unknown paths are not in the document (it describes operations): the error envelope's
      // shape is checked here — {code: the status, message: the contract's text, data: null}.
      if (isObject(answer.body)) {
        if (answer.body.data !== null) problems.push("data is not null");
        if (answer.body.code !== answer.status) problems.push(`code ${String(answer.body.code)} ≠ status ${answer.status}`);
        if (answer.body.message !== expected.message) problems.push(`message ${JSON.stringify(answer.body.message)}`);
      }
      if (header(answer, "x-credits-charged") !== null) problems.push("credit headers on an unknown path");
      return problems;
    },
  };
};
