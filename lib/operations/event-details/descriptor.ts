import type { OperationDescriptor } from "../descriptor";

/** An event by its page URL, as the browser knows the operation (the rest: ./index.ts). */
export const eventDetailsOperation = {
  id: "event_details",
  path: "/v1/eventsite/event_details",
  costCredits: 4,
  pageSize: null,
  primaryParam: "url",
  label: { short: "Event by URL", site: "Event site", lookedUpBy: "Event page URL" },
  subjectKind: "event",
  chartColor: "oklch(60% 0.2 277)",
} as const satisfies OperationDescriptor<"event_details">;
