import type { OperationDescriptor } from "../descriptor";

/** An event by its id, as the browser knows the operation (the rest: ./index.ts). */
export const eventDetailsIdOperation = {
  id: "event_details_id",
  path: "/v1/eventsite/event_details_id",
  costCredits: 4,
  pageSize: null,
  primaryParam: "event_id",
  label: { short: "Event by id", site: "Event site", lookedUpBy: "Numeric event id" },
  subjectKind: "event",
  chartColor: "oklch(70% 0.13 210)",
} as const satisfies OperationDescriptor<"event_details_id">;
