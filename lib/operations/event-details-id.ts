import { parseEventById, type EventByIdParams } from "@/lib/api/params";
import { eventBatch } from "./batch-shapes";
import { defineOperation } from "./define";

export const eventDetailsId = defineOperation<EventByIdParams>({
  id: "event_details_id",
  path: "/v1/eventsite/event_details_id",
  costCredits: 4,
  summary: "Get event details by id",
  notFoundMessage: "Event not found",
  paramNames: ["event_id"],
  primaryParam: "event_id",
  label: { short: "Event by id", site: "Event site", lookedUpBy: "Numeric event id" },
  batch: eventBatch("not an event id (digits only)"),
  parse: (query) => parseEventById(query),
  lookup: (params, connector, context) => connector.event(params.eventId, context),
});
