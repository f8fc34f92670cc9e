import { paramSchemas, type ParamName } from "@/lib/records/params";
import { registry, type Operation, type Registry } from "@/lib/operations";
import type { OperationBatch } from "@/lib/operations/define";
import type { BatchOperationView } from "./inputs";

/**
 * Operations that batches offer: those of the registry that describe their batch results and
 * whose one-line parameter has a schema — one the browser can check too (lib/records/params.ts),
 * or the operation's own parameter's, which the server checks (acceptsInput).
 */
export type BatchOperation = Operation & { batch: OperationBatch };

const isParamName = (name: string): name is ParamName => Object.hasOwn(paramSchemas, name);

const ownParam = (operation: Operation) => operation.params.find((param) => param.name === operation.primaryParam);

const isBatchOperation = (operation: Operation): operation is BatchOperation =>
  operation.batch !== undefined && (isParamName(operation.primaryParam) || ownParam(operation) !== undefined);

export const batchOperations = (operations: Registry = registry): BatchOperation[] => operations.filter(isBatchOperation);

export const batchOperationById = (id: string, operations: Registry = registry): BatchOperation | undefined =>
  batchOperations(operations).find((operation) => operation.id === id);

/**
 * Whether one line is a value of the operation's one-line parameter, for a parameter the browser
 * has no schema of (an operation's own); undefined for the shared ones, which inputs.ts checks.
 */
export const acceptsInputOf = (operation: BatchOperation): ((value: string) => boolean) | undefined => {
  if (isParamName(operation.primaryParam)) return undefined;
  const schema = ownParam(operation)?.schema;
  return schema === undefined ? undefined : (value) => schema.safeParse(value).success;
};

/** What one line of a batch holds, as the form names it: "Paste event page URLs". */
const inputNouns: Record<ParamName, string> = {
  url: "event page URLs",
  event_id: "event ids",
  userid: "user ids",
  node_id: "node ids",
  cursor: "cursors",
  urn: "profile URNs",
  page: "page numbers",
};

/** What the page needs of an operation (plain data, sent to the browser). */
export const batchOperationView = (operation: BatchOperation): BatchOperationView => ({
  id: operation.id,
  label: operation.label.short,
  site: operation.label.site,
  costCredits: operation.costCredits,
  primaryParam: operation.primaryParam,
  inputNoun: isParamName(operation.primaryParam) ? inputNouns[operation.primaryParam] : `${operation.label.lookedUpBy.toLowerCase()}s`,
  invalidInput: operation.batch.invalidInput,
  paged: operation.batch.nextPage !== undefined,
});
