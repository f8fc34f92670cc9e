import { registry as defaultRegistry, type Registry } from "@/lib/operations";
import { clientCommandName, clientMethodName, clientPythonName } from "@/lib/operations/client-name";
import type { OperationPaging } from "@/lib/operations/paging";
import { buildOpenApiDocument, paramDescription, paramSchema } from "@/lib/openapi/document";
import { metaId, SCHEMAS_PREFIX } from "@/lib/openapi/json-schema";
import type { SchemaObject } from "@/lib/openapi/types";
import { accountDataSchema } from "@/lib/usage/account-schema";

/**
 * What the clients are generated from (scripts/generate-clients.ts): the registry's operations, as
 * the SDKs name and call them, and the JSON Schemas of what they answer — the OpenAPI document's
 * components, which are the registry's own zod schemas (lib/openapi). Nothing here is written by
 * hand per operation: a new operation in the registry is a new entry here.
 */
export type ClientParam = {
  name: string;
  required: boolean;
  /** The API reads a whole number (a page): the SDKs take a number. */
  integer: boolean;
  description: string;
};

export type ClientOperation = {
  id: string;
  /** camelCase method: eventDetailsId. */
  method: string;
  /** kebab-case command: event-details-id. */
  command: string;
  /** snake_case Python method: event_details_id. */
  python: string;
  /** PascalCase stem of its generated type names: EventDetailsId. */
  typeStem: string;
  path: string;
  summary: string;
  rule: string | null;
  costCredits: number;
  pageSize: number | null;
  primaryParam: string;
  params: ClientParam[];
  notFoundMessage: string;
  /** The component schema of its `data`. */
  recordType: string;
  /** The component schema of one entry of a page, when the entries are a named schema. */
  entryType: string | null;
  paging: OperationPaging | null;
  /** Batches take it. */
  batch: boolean;
  csv: { rowsAt: string; columns: readonly string[] } | null;
};

export type ClientModel = {
  operations: ClientOperation[];
  /** The schemas the clients type, in the document's order: records, the account, batches. */
  schemas: [string, SchemaObject][];
  accountType: string;
};

/** The batch schemas the SDKs type (the rest of the document's are envelopes and errors). */
const BATCH_SCHEMAS = ["BatchRequest", "BatchCreated", "Batch", "BatchList"];

const pascal = (camel: string): string => `${camel.charAt(0).toUpperCase()}${camel.slice(1)}`;

const refName = (schema: SchemaObject | undefined): string | null => {
  const ref = schema?.$ref;
  return typeof ref === "string" && ref.startsWith(SCHEMAS_PREFIX) ? ref.slice(SCHEMAS_PREFIX.length) : null;
};

const isSchema = (value: unknown): value is SchemaObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every component a schema refers to, itself first, each once. */
const reachable = (name: string, schemas: Record<string, SchemaObject>, seen: Set<string>): void => {
  if (seen.has(name)) return;
  const schema = schemas[name];
  if (schema === undefined) throw new Error(`the OpenAPI document has no schema ${name}`);
  seen.add(name);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isSchema(value)) {
      const ref = refName(value);
      if (ref !== null) reachable(ref, schemas, seen);
      Object.values(value).forEach(visit);
    }
  };
  visit(schema);
};

/** The entries' item schema of a paged record, when it is a named component. */
const entryTypeOf = (record: SchemaObject | undefined, paging: OperationPaging | undefined): string | null => {
  if (paging === undefined || record === undefined) return null;
  const properties = record.properties;
  const list = isSchema(properties) ? properties[paging.entries] : undefined;
  return isSchema(list) && isSchema(list.items) ? refName(list.items) : null;
};

export const clientModel = (operations: Registry = defaultRegistry): ClientModel => {
  const document = buildOpenApiDocument(operations);
  const schemas = document.components.schemas;
  const accountType = metaId(accountDataSchema);
  const clientOperations = operations.map((operation): ClientOperation => {
    const method = clientMethodName(operation);
    const recordType = metaId(operation.record);
    return {
      id: operation.id,
      method,
      command: clientCommandName(operation),
      python: clientPythonName(operation),
      typeStem: pascal(method),
      path: operation.path,
      summary: operation.summary,
      rule: operation.rule ?? null,
      costCredits: operation.costCredits,
      pageSize: operation.pageSize,
      primaryParam: operation.primaryParam,
      params: operation.params.map((param) => ({
        name: param.name,
        required: param.required,
        integer: paramSchema(param).type === "integer",
        description: paramDescription(param),
      })),
      notFoundMessage: operation.notFoundMessage,
      recordType,
      entryType: entryTypeOf(schemas[recordType], operation.paging),
      paging: operation.paging ?? null,
      batch: operation.batch !== undefined,
      csv: operation.batch?.rowsAt === undefined ? null : { rowsAt: operation.batch.rowsAt, columns: operation.batch.columns },
    };
  });
  const wanted = new Set<string>();
  for (const name of [...clientOperations.map((operation) => operation.recordType), accountType, ...BATCH_SCHEMAS]) {
    reachable(name, schemas, wanted);
  }
  return {
    operations: clientOperations,
    schemas: Object.entries(schemas).filter(([name]) => wanted.has(name)),
    accountType,
  };
};
