import { paramSchemas, type ParamName } from "@/lib/records/params";
import { registry, type Operation } from "@/lib/operations";
import type { OperationBatch } from "@/lib/operations/define";
import type { BatchOperationView } from "./inputs";

/**
 * Operations that batches offer: those of the registry that describe their batch results and
 * whose one-line parameter has a schema the browser can check too.
 */
export type BatchOperation = Operation & { batch: OperationBatch; primaryParam: ParamName };

const isParamName = (name: string): name is ParamName => Object.hasOwn(paramSchemas, name);

const isBatchOperation = (operation: Operation): operation is BatchOperation =>
  operation.batch !== undefined && isParamName(operation.primaryParam);

export const batchOperations = (): BatchOperation[] => registry.filter(isBatchOperation);

export const batchOperationById = (id: string): BatchOperation | undefined => batchOperations().find((operation) => operation.id === id);

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
  inputNoun: inputNouns[operation.primaryParam],
  invalidInput: operation.batch.invalidInput,
  paged: operation.batch.nextPage !== undefined,
});
