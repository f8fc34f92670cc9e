import { z } from "zod";
import { paramDescription, paramSchema } from "@/lib/openapi/document";
import type { JsonObject, JsonValue } from "@/lib/openapi/types";
import type { Operation } from "@/lib/operations";

/**
 * JSON Schemas of the MCP tools, derived from the operations registry: a tool's input is its
 * operation's query parameters, its output the record schema of a 200 answer's `data`.
 * Draft-07, self-contained (no references outside the schema): what MCP clients validate with.
 */
const isJsonObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const asJson = (value: unknown): JsonValue => JSON.parse(JSON.stringify(value)) as JsonValue;

/** A zod schema as a self-contained draft-07 JSON Schema object. */
export const toolSchemaOf = (schema: z.ZodType): JsonObject => {
  const json = asJson(z.toJSONSchema(schema, { target: "draft-7", io: "output" }));
  if (!isJsonObject(json)) throw new Error("zod produced a non-object JSON Schema");
  const { $schema: _dialect, ...rest } = json;
  return rest;
};

/**
 * The input schema: one property per query parameter, typed as clients see it in OpenAPI (a
 * page number is an integer), with its description; required as the operation requires it.
 */
export const inputSchemaOf = (operation: Operation): JsonObject => {
  const properties: JsonObject = {};
  for (const param of operation.params) {
    properties[param.name] = { ...asObject(asJson(paramSchema(param))), description: paramDescription(param) };
  }
  const required = operation.params.filter((param) => param.required).map((param) => param.name);
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
};

const asObject = (value: JsonValue): JsonObject => (isJsonObject(value) ? value : {});

/** A whole-number tool argument: its value (the default when absent), or the sentence an agent reads. */
export type WholeNumberArg = { ok: true; value: number } | { ok: false; message: string };

/**
 * Reads `args[name]` as a whole number from `min` to `max`: a number with a fraction, a numeric
 * string, or one out of range is refused by name rather than read as something else.
 */
export const wholeNumberArg = (args: Record<string, unknown>, name: string, range: { min: number; max: number; default: number }): WholeNumberArg => {
  const value = args[name];
  if (value === undefined) return { ok: true, value: range.default };
  if (typeof value === "number" && Number.isInteger(value) && value >= range.min && value <= range.max) return { ok: true, value };
  const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : String(JSON.stringify(value) ?? value).slice(0, 40);
  return {
    ok: false,
    message: `${name} must be a whole number from ${range.min} to ${range.max} (a JSON number, not text); got ${shown}.`,
  };
};
