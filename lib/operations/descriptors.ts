import type { OperationDescriptor } from "./descriptor";
import { eventDetailsOperation } from "./event-details/descriptor";
import { eventDetailsIdOperation } from "./event-details-id/descriptor";
import { followersOperation } from "./followers/descriptor";
import { publicationsOperation } from "./publications/descriptor";

/**
 * The registry as the browser sees it: every operation's descriptor, in registry order
 * (./index.ts lists the whole operations; descriptors.test.ts checks that both lists agree).
 * Console code imports this, never ./index.ts, which carries zod schemas and server code.
 */
export const operationDescriptors: readonly OperationDescriptor[] = [
  eventDetailsOperation,
  eventDetailsIdOperation,
  followersOperation,
  publicationsOperation,
];

export const descriptorById = (id: string): OperationDescriptor | undefined =>
  operationDescriptors.find((operation) => operation.id === id);
