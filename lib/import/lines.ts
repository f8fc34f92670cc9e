import {
  eventJson,
  followerJson,
  publicationJson,
  upsertEvents,
  upsertFollowerList,
  upsertPublicationList,
  type FollowerList,
  type PublicationList,
} from "@/lib/connectors/store-records";
import { kindOf, recordKinds, type SubjectKind } from "@/lib/records/kinds";
import { nodeIdFor } from "@/lib/records/node-id";
import { eventSchema, followerListSchema, publicationListSchema, type EventRecord } from "@/lib/records/records";
import { listLine, singleLine, type ImportLine } from "./record-line";

/**
 * What one value of an import file is, in the API's own shapes (lib/records/records.ts): an Event
 * (bare, or as the API's `{event: …}`), a follower list `{userid, node_id?, followers}` or a
 * publication list `{urn, publications}`. Each kind of record (lib/records/kinds.ts) has one line
 * here: its schemas and its writer; the rest is read from its row.
 */
export type ImportRecord =
  | { kind: "event"; event: EventRecord }
  | { kind: "followers"; list: FollowerList }
  | { kind: "publications"; list: PublicationList };

const event = kindOf("event");
const pinUser = kindOf("pin_user");
const profile = kindOf("profile");

const lines: { [Subject in SubjectKind]: ImportLine<ImportRecord> } = {
  event: singleLine({
    kind: event,
    describe: "an event (event_id)",
    wrapper: "event",
    schema: eventSchema,
    id: (value) => value.event_id,
    json: eventJson,
    data: (value) => ({ kind: "event", event: value }),
    count: "events",
    upsert: upsertEvents,
  }),
  pin_user: listLine({
    kind: pinUser,
    describe: "a follower list (userid, followers)",
    head: followerListSchema.omit({ followers: true }),
    entry: followerListSchema.shape.followers.element,
    check: ({ userid, node_id: nodeId }) =>
      nodeId !== undefined && nodeId !== nodeIdFor(userid) ? `node_id: does not belong to userid ${userid} (expected ${nodeIdFor(userid)})` : null,
    list: (head, followers): FollowerList => ({ userid: head.userid, followers }),
    id: (list) => list.userid,
    entriesOf: (list) => list.followers,
    withEntries: (list, followers) => ({ ...list, followers }),
    entryJson: followerJson,
    data: (list) => ({ kind: "followers", list }),
    counts: { lists: "followerLists", entries: "followers" },
    upsert: upsertFollowerList,
  }),
  profile: listLine({
    kind: profile,
    describe: "a publication list (urn, publications)",
    head: publicationListSchema.omit({ publications: true }),
    entry: publicationListSchema.shape.publications.element,
    list: (head, publications): PublicationList => ({ urn: head.urn, publications }),
    id: (list) => list.urn,
    entriesOf: (list) => list.publications,
    withEntries: (list, publications) => ({ ...list, publications }),
    entryJson: publicationJson,
    data: (list) => ({ kind: "publications", list }),
    counts: { lists: "publicationLists", entries: "publications" },
    upsert: upsertPublicationList,
  }),
};

/** The lines in the kinds table's order: batches are written in it, the "not a record" message lists it. */
export const importLines: readonly ImportLine<ImportRecord>[] = recordKinds.map((kind) => lines[kind.subject]);

/**
 * The order a value is claimed in: a list by its entries' field first (a list's entries may
 * carry any other field), a single record (by its id or its wrapper) last.
 */
export const claimOrder: readonly ImportLine<ImportRecord>[] = [...importLines].sort(
  (first, second) => Number(first.kind.tables.entries === undefined) - Number(second.kind.tables.entries === undefined),
);
