import { param, parseEventById, type EventByIdParams } from "@/lib/records/params";
import { eventDataSchema, type EventRecord } from "@/lib/records/records";
import { eventBatch } from "../batch-shapes";
import { defineOperation } from "../define";
import { exampleEventDetails } from "../event-example";
import { eventDetailsIdOperation } from "./descriptor";
import { eventSource } from "./source";

export { eventDetailsIdOperation };

export const eventDetailsId = defineOperation<(typeof eventDetailsIdOperation)["id"], { event: EventRecord }, EventByIdParams>({
  ...eventDetailsIdOperation,
  summary: "Get event details by id",
  notFoundMessage: "Event not found",
  params: [param("event_id", { required: true, example: "1000000000000001" })],
  record: eventDataSchema,
  example: { summary: "an event", data: exampleEventDetails },
  tagDescription: "Event details",
  batch: eventBatch("not an event id (digits only)"),
  parse: (query) => parseEventById(query),
  source: eventSource,
});
