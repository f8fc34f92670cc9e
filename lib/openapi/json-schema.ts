import { z } from "zod";
import type { JsonObject, JsonValue, ReferenceObject, SchemaObject } from "./types";

/**
 * zod → JSON Schema 2020-12 as OpenAPI 3.1 embeds it: named schemas (`.meta({ id })`) move to
 * components/schemas and are referenced from there.
 */
export const SCHEMAS_PREFIX = "#/components/schemas/";
export const schemaRef = (id: string): ReferenceObject => ({ $ref: `${SCHEMAS_PREFIX}${id}` });
export const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

const isJsonObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * zod's output re-typed as plain JSON, with its local `#/$defs/<id>` refs pointed at
 * components/schemas (where the $defs are moved). Walking `unknown` avoids a cast.
 */
const toDocumentJson = (value: unknown): JsonValue => {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  if (Array.isArray(value)) return value.map(toDocumentJson);
  if (typeof value !== "object") throw new Error(`not representable in JSON: ${typeof value}`);
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === "$ref" && typeof child === "string"
        ? child.replace(/^#\/\$defs\//, SCHEMAS_PREFIX)
        : toDocumentJson(child);
  }
  return out;
};

export type ConvertedSchema = { root: SchemaObject; defs: Record<string, SchemaObject> };

export type ConvertOptions = {
  /** "input": what a request may send (a field with a default is optional), not what an answer holds. */
  io?: "input" | "output";
  /** Keywords left out of every node, for limits the document states in words instead. */
  leaveOut?: readonly string[];
};

/** One zod schema as JSON Schema 2020-12: its root (a $ref when it has a meta id) and its $defs. */
export const convert = (schema: z.ZodType, options: ConvertOptions = {}): ConvertedSchema => {
  const leaveOut = options.leaveOut ?? [];
  const json = toDocumentJson(
    z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io: options.io ?? "output",
      override: ({ jsonSchema }) => {
        for (const keyword of leaveOut) delete jsonSchema[keyword];
      },
    }),
  );
  if (!isJsonObject(json)) throw new Error("zod produced a non-object JSON Schema");
  // `$schema` is implied by OpenAPI 3.1's dialect; `$defs` move to components.
  const { $schema: _dialect, $defs, ...root } = json;
  const defs: Record<string, SchemaObject> = {};
  if (isJsonObject($defs)) {
    for (const [id, def] of Object.entries($defs)) {
      if (!isJsonObject(def)) throw new Error(`$defs/${id} is not an object`);
      defs[id] = def;
    }
  }
  return { root, defs };
};

/** Adds $defs to the components; the same id must always mean the same schema. */
export const mergeDefs = (target: Record<string, SchemaObject>, defs: Record<string, SchemaObject>) => {
  for (const [id, def] of Object.entries(defs)) {
    const existing = target[id];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(def)) {
      throw new Error(`two different schemas carry the meta id "${id}"`);
    }
    target[id] = def;
  }
};

export const metaId = (schema: z.ZodType): string => {
  const id = schema.meta()?.id;
  if (typeof id !== "string") throw new Error("a response data schema needs .meta({ id })");
  return id;
};
