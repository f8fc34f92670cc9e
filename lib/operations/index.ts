import type { Operation } from "./define";
import { eventDetails } from "./event-details";
import { eventDetailsId } from "./event-details-id";
import { followers } from "./followers";
import { publications } from "./publications";

export type { Operation } from "./define";

/** The registry: every operation the product serves, in the order pages and documents list them. */
export const registry: readonly Operation[] = [eventDetails, eventDetailsId, followers, publications];

export const operationById = (id: string): Operation | undefined => registry.find((operation) => operation.id === id);

/** The operation served at a /v1 path; one trailing slash is accepted, as before. */
export const operationByPath = (pathname: string): Operation | undefined => {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  return registry.find((operation) => operation.path === path);
};
