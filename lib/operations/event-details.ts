import { param, parseEventByUrl, type EventByUrlParams } from "@/lib/api/params";
import { eventDataSchema, type EventRecord } from "@/lib/api/records";
import { defineOperation } from "./define";
import { eventDetailsId } from "./event-details-id";
import { exampleEventDetails } from "./event-example";

export const eventDetails = defineOperation<"event_details", { event: EventRecord }, EventByUrlParams>({
  id: "event_details",
  path: "/v1/eventsite/event_details",
  costCredits: 4,
  summary: "Get event details by url",
  rule: "The url is https://<host>/events/<digits>/ on a configured event-site host; www./m. prefixes and a query string are accepted.",
  notFoundMessage: "Event not found",
  pageSize: null,
  params: [param("url", { required: true, example: "https://events.demo.test/events/1000000000000001/" })],
  primaryParam: "url",
  record: eventDataSchema,
  example: { summary: "an event", data: exampleEventDetails },
  tagDescription: "Event details",
  label: { short: "Event by URL", site: "Event site", lookedUpBy: "Event page URL" },
  chartColor: "oklch(60% 0.2 277)",
  // The provider is asked by id: the URL only names the event, and an id is what it caches by.
  upstream: eventDetailsId.upstream,
  parse: (query, context) => parseEventByUrl(query, { hosts: context.eventSiteHosts }),
  lookup: (params, connector, context) => connector.event(params.eventId, context),
});
