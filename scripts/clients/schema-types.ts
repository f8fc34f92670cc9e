import { SCHEMAS_PREFIX } from "@/lib/openapi/json-schema";
import type { JsonValue, SchemaObject } from "@/lib/openapi/types";

/**
 * The JSON Schema 2020-12 the registry's records become (lib/openapi/json-schema.ts), read into a
 * small type tree that both emitters print: TypeScript types for the SDK, TypedDicts for Python.
 * Keywords that only constrain a value (pattern, minimum, format) are documentation, not types.
 */
export type Literal = string | number | boolean | null;

export type Field = { name: string; required: boolean; type: TypeNode; description: string | null };

export type TypeNode =
  | { kind: "ref"; name: string }
  | { kind: "string" | "integer" | "number" | "boolean" | "null" | "unknown" }
  | { kind: "literal"; values: Literal[] }
  | { kind: "array"; items: TypeNode }
  | { kind: "object"; fields: Field[] }
  | { kind: "map"; values: TypeNode }
  | { kind: "union"; members: TypeNode[] };

const isSchema = (value: JsonValue | undefined): value is SchemaObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isLiteral = (value: JsonValue): value is Literal => value === null || ["string", "number", "boolean"].includes(typeof value);

const PRIMITIVES = ["string", "integer", "number", "boolean", "null"] as const;
type Primitive = (typeof PRIMITIVES)[number];
const isPrimitive = (value: JsonValue): value is Primitive => typeof value === "string" && (PRIMITIVES as readonly string[]).includes(value);

/** A union without nested unions and without repeated members. */
const unionOf = (members: TypeNode[]): TypeNode => {
  const flat = members.flatMap((member) => (member.kind === "union" ? member.members : [member]));
  const unique = flat.filter((member, index) => flat.findIndex((other) => JSON.stringify(other) === JSON.stringify(member)) === index);
  return unique.length === 1 && unique[0] !== undefined ? unique[0] : { kind: "union", members: unique };
};

const objectOf = (schema: SchemaObject): TypeNode => {
  const properties = schema.properties;
  if (!isSchema(properties)) {
    const values = schema.additionalProperties;
    return { kind: "map", values: isSchema(values) ? typeOf(values) : { kind: "unknown" } };
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === "string") : [];
  return {
    kind: "object",
    fields: Object.entries(properties).map(([name, value]) => {
      if (!isSchema(value)) throw new Error(`property ${name} is not a schema`);
      return {
        name,
        required: required.includes(name),
        type: typeOf(value),
        description: typeof value.description === "string" ? value.description : null,
      };
    }),
  };
};

const ofType = (type: Primitive | "array" | "object", schema: SchemaObject): TypeNode => {
  if (type === "array") return { kind: "array", items: isSchema(schema.items) ? typeOf(schema.items) : { kind: "unknown" } };
  if (type === "object") return objectOf(schema);
  return { kind: type };
};

export const typeOf = (schema: SchemaObject): TypeNode => {
  const ref = schema.$ref;
  if (typeof ref === "string") {
    if (!ref.startsWith(SCHEMAS_PREFIX)) throw new Error(`unsupported $ref ${ref}`);
    return { kind: "ref", name: ref.slice(SCHEMAS_PREFIX.length) };
  }
  const choices = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (choices !== null) {
    return unionOf(
      choices.map((choice) => {
        if (!isSchema(choice)) throw new Error("anyOf holds a non-schema");
        return typeOf(choice);
      }),
    );
  }
  if ("const" in schema && schema.const !== undefined && isLiteral(schema.const)) return { kind: "literal", values: [schema.const] };
  if (Array.isArray(schema.enum)) return { kind: "literal", values: schema.enum.filter(isLiteral) };
  const type = schema.type;
  if (Array.isArray(type)) {
    return unionOf(
      type.map((member) => {
        if (!isPrimitive(member) && member !== "array" && member !== "object") throw new Error(`unsupported type ${String(member)}`);
        return ofType(member, schema);
      }),
    );
  }
  if (type === "array" || type === "object" || (typeof type === "string" && isPrimitive(type))) return ofType(type, schema);
  if (type === undefined && isSchema(schema.properties)) return objectOf(schema);
  if (type === undefined) return { kind: "unknown" };
  throw new Error(`unsupported type ${JSON.stringify(type)}`);
};

/** The refs a type names, for ordering definitions (Python evaluates its TypedDicts in order). */
export const refsOf = (node: TypeNode): string[] => {
  switch (node.kind) {
    case "ref":
      return [node.name];
    case "array":
      return refsOf(node.items);
    case "map":
      return refsOf(node.values);
    case "union":
      return node.members.flatMap(refsOf);
    case "object":
      return node.fields.flatMap((field) => refsOf(field.type));
    default:
      return [];
  }
};
