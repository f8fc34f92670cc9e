/** JSON as records, examples and schemas are written: plain values, objects, and JSON Schema objects. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };
/** A JSON Schema (draft 2020-12) object, as OpenAPI 3.1 embeds it. */
export type SchemaObject = JsonObject;
