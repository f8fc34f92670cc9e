import { eventDataSchema } from "@/lib/records/records";
import { eventSource } from "./event-details-id/source";
import { exampleEventDetails } from "./event-example";

/**
 * What both event operations answer, whichever way they name the event (its page URL or its id):
 * the record and its example, the 404, the OpenAPI tag, and where it comes from — the provider is
 * asked by id either way, since the URL only names the event and an id is what it caches by.
 */
export const eventAnswer = {
  notFoundMessage: "Event not found",
  record: eventDataSchema,
  example: { summary: "an event", data: exampleEventDetails },
  tagDescription: "Event details",
  source: eventSource,
};
