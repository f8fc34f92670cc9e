import { parseEventByUrl, type EventByUrlParams } from "@/lib/api/params";
import { eventBatch } from "./batch-shapes";
import { defineOperation } from "./define";

export const eventDetails = defineOperation<EventByUrlParams>({
  id: "event_details",
  path: "/v1/eventsite/event_details",
  costCredits: 4,
  summary: "Get event details by url",
  notFoundMessage: "Event not found",
  paramNames: ["url"],
  primaryParam: "url",
  label: { short: "Event by URL", site: "Event site", lookedUpBy: "Event page URL" },
  batch: eventBatch("not an event URL"),
  parse: (query, context) => parseEventByUrl(query, { hosts: context.eventSiteHosts }),
  lookup: (params, connector, context) => connector.event(params.eventId, context),
});
