import type { RecordKind } from "@/lib/records/kinds";
import type { Operation } from "./define";
import { eventDetails } from "./event-details";
import { eventDetailsId } from "./event-details-id";
import { followers } from "./followers";
import { publications } from "./publications";

export type { Operation, OperationParam } from "./define";

/** A list of operations: what /v1, OpenAPI, the console and usage are built from. */
export type Registry = readonly Operation[];

/** The registry: every operation the product serves, in the order pages and documents list them. */
export const registry: Registry = [eventDetails, eventDetailsId, followers, publications];

export const operationById = (id: string, operations: Registry = registry): Operation | undefined =>
  operations.find((operation) => operation.id === id);

/** The operation served at a /v1 path; one trailing slash is accepted, as before. */
export const operationByPath = (pathname: string, operations: Registry = registry): Operation | undefined => {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  return operations.find((operation) => operation.path === path);
};

/** Every query parameter name any operation reads (usage summaries are split on them). */
export const paramNamesOf = (operations: Registry = registry): string[] => [
  ...new Set(operations.flatMap((operation) => operation.params.map((param) => param.name))),
];

/** The kinds of record the operations' sources answer, each once, in registry order. */
export const kindsOf = (operations: Registry = registry): RecordKind[] => [
  ...new Set(operations.flatMap((operation) => (operation.recordKind === undefined ? [] : [operation.recordKind]))),
];
