import { singleRecordSource } from "@/lib/connectors/single-record";
import { kindOf } from "@/lib/connectors/source";
import { eventJson, upsertEvents } from "@/lib/connectors/store-records";
import { eventDataSchema, type EventRecord } from "@/lib/records/records";

type EventData = { event: EventRecord };

/** The `data` of an event answer around the event's canonical text. */
export const eventDataJson = (recordJson: string): string => `{"event":${recordJson}}`;

/**
 * Where event answers come from: one row of `events`, or the provider's event by id. Both event
 * operations answer from it (the URL only names the event, and an id is what the provider and the
 * cache go by).
 */
export const eventSource = singleRecordSource<{ eventId: string }, EventRecord, EventData, EventData>({
  kind: kindOf("event"),
  id: (params) => params.eventId,
  dataJson: eventDataJson,
  recordJson: eventJson,
  recordId: (event) => event.event_id,
  write: (db, event, source) => upsertEvents(db, [event], source),
  upstream: {
    path: "v1/eventsite/event_details_id",
    query: (params) => ({ event_id: params.eventId }),
    schema: eventDataSchema,
    record: (data) => data.event,
  },
  answerSubjects: { own: (data) => data.event.event_id },
});
