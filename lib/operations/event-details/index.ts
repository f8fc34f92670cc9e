import { param, parseEventByUrl, type EventByUrlParams } from "@/lib/records/params";
import { eventDataSchema, type EventRecord } from "@/lib/records/records";
import { eventBatch } from "../batch-shapes";
import { defineOperation } from "../define";
import { eventSource } from "../event-details-id/source";
import { exampleEventDetails } from "../event-example";
import { eventDetailsOperation } from "./descriptor";

export { eventDetailsOperation };

export const eventDetails = defineOperation<(typeof eventDetailsOperation)["id"], { event: EventRecord }, EventByUrlParams>({
  ...eventDetailsOperation,
  summary: "Get event details by url",
  rule: "The url is https://<host>/events/<digits>/ on a configured event-site host; www./m. prefixes and a query string are accepted.",
  notFoundMessage: "Event not found",
  params: [param("url", { required: true, example: "https://events.demo.test/events/1000000000000001/" })],
  record: eventDataSchema,
  example: { summary: "an event", data: exampleEventDetails },
  tagDescription: "Event details",
  batch: eventBatch("not an event URL"),
  parse: (query, context) => parseEventByUrl(query, { hosts: context.eventSiteHosts }),
  // The provider is asked by id: the URL only names the event, and an id is what it caches by.
  source: eventSource,
});
