import { param, parseEventById, type EventByIdParams } from "@/lib/records/params";
import type { EventRecord } from "@/lib/records/records";
import { eventBatch } from "../batch-shapes";
import { defineOperation } from "../define";
import { eventAnswer } from "../event-answer";
import { eventDetailsIdOperation } from "./descriptor";

export { eventDetailsIdOperation };

export const eventDetailsId = defineOperation<(typeof eventDetailsIdOperation)["id"], { event: EventRecord }, EventByIdParams>({
  ...eventDetailsIdOperation,
  summary: "Get event details by id",
  params: [param("event_id", { required: true, example: "1000000000000001" })],
  ...eventAnswer,
  batch: eventBatch("not an event id (digits only)"),
  parse: (query) => parseEventById(query),
});
