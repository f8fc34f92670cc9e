import { registry as defaultRegistry, type Registry } from "@/lib/operations";
import { clientMethodName, clientPythonName, type ClientNames } from "@/lib/operations/client-name";
import { paramDescription, paramSchema } from "./document";

/** The console's API reference page (try-it forms, curl / fetch / python snippets), from the registry. */
export type OperationParameterDoc = {
  name: string;
  required: boolean;
  description: string;
  /** A query-string value that finds a demo record. */
  example: string;
  /** Empty at first in the try-it form: it selects another mode. */
  alternative: boolean;
};

export type OperationDoc = {
  name: string;
  path: string;
  costCredits: number;
  summary: string;
  /** Rules spanning parameters (e.g. followers: userid, else node_id + cursor); "" when none. */
  description: string;
  parameters: OperationParameterDoc[];
  /** Its names in the generated clients, for the SDK and Python client snippets. */
  client: ClientNames;
};

export const operationDocs = (operations: Registry = defaultRegistry): OperationDoc[] =>
  operations.map((operation) => ({
    name: operation.id,
    path: operation.path,
    costCredits: operation.costCredits,
    summary: operation.summary,
    description: operation.rule ?? "",
    parameters: operation.params.map((param) => ({
      name: param.name,
      required: param.required,
      description: paramDescription(param),
      example: param.example,
      alternative: param.alternative ?? false,
    })),
    client: {
      method: clientMethodName(operation),
      python: clientPythonName(operation),
      integers: operation.params.filter((param) => paramSchema(param).type === "integer").map((param) => param.name),
    },
  }));
