import fs from "node:fs";
import path from "node:path";
import type { Registry } from "@/lib/operations";
import { pythonGeneratedModule } from "./emit-python";
import { typescriptOperationsModule } from "./emit-typescript";
import { clientModel } from "./model";

/**
 * Every file the client generator writes, by path from the repository root, with its content:
 * the SDK's operations module, the product's CSV writer as the SDK's command line uses it, and
 * the Python client's types and methods. tests/unit/clients-generated.test.ts compares them with
 * the files in the tree, so a registry change without regenerating fails `npm test`.
 */
export const TS_OPERATIONS = "clients/typescript/src/generated/operations.ts";
export const TS_CSV = "clients/typescript/src/generated/csv.ts";
export const PY_GENERATED = "clients/python/social_lookup/_generated.py";

/** The one CSV writer (lib/export/csv.ts), copied whole: the command line defuses cells as the product does. */
const CSV_SOURCE = "lib/export/csv.ts";

export const generatedClientFiles = (root: string, operations?: Registry): Record<string, string> => {
  const model = clientModel(operations);
  const csv = fs.readFileSync(path.join(root, CSV_SOURCE), "utf8");
  return {
    [TS_OPERATIONS]: typescriptOperationsModule(model),
    [TS_CSV]: [`// Copied from ${CSV_SOURCE} by scripts/generate-clients.ts. Do not edit: edit that file and regenerate.`, "", csv].join("\n"),
    [PY_GENERATED]: pythonGeneratedModule(model),
  };
};
