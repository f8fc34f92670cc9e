import { param, parseEventById, type EventByIdParams } from "@/lib/api/params";
import { eventDataSchema, type EventRecord } from "@/lib/api/records";
import { exampleEventDetails } from "./event-example";
import { defineOperation } from "./define";

export const eventDetailsId = defineOperation<"event_details_id", { event: EventRecord }, EventByIdParams>({
  id: "event_details_id",
  path: "/v1/eventsite/event_details_id",
  costCredits: 4,
  summary: "Get event details by id",
  notFoundMessage: "Event not found",
  pageSize: null,
  params: [param("event_id", { required: true, example: "1000000000000001" })],
  primaryParam: "event_id",
  record: eventDataSchema,
  example: { summary: "an event", data: exampleEventDetails },
  tagDescription: "Event details",
  label: { short: "Event by id", site: "Event site", lookedUpBy: "Numeric event id" },
  chartColor: "oklch(70% 0.13 210)",
  upstream: { path: "v1/eventsite/event_details_id" },
  parse: (query) => parseEventById(query),
  lookup: (params, connector, context) => connector.event(params.eventId, context),
});
