import { param, parseEventByUrl, type EventByUrlParams } from "@/lib/records/params";
import type { EventRecord } from "@/lib/records/records";
import { eventBatch } from "../batch-shapes";
import { defineOperation } from "../define";
import { eventAnswer } from "../event-answer";
import { eventDetailsOperation } from "./descriptor";

export { eventDetailsOperation };

export const eventDetails = defineOperation<(typeof eventDetailsOperation)["id"], { event: EventRecord }, EventByUrlParams>({
  ...eventDetailsOperation,
  summary: "Get event details by url",
  rule: "The url is https://<host>/events/<digits>/ on a configured event-site host; www./m. prefixes and a query string are accepted.",
  params: [param("url", { required: true, example: "https://events.demo.test/events/1000000000000001/" })],
  ...eventAnswer,
  batch: eventBatch("not an event URL"),
  parse: (query, context) => parseEventByUrl(query, { hosts: context.eventSiteHosts }),
});
