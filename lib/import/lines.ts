import {
  eventJson,
  followerJson,
  publicationJson,
  upsertEvents,
  upsertFollowerList,
  upsertPublicationList,
  upsertSingleRecords,
  schemaOrderedJson,
  type FollowerList,
  type PublicationList,
} from "@/lib/connectors/store-records";
import { kindsOf, registry, type Registry } from "@/lib/operations";
import { kindOf, recordKinds, type RecordKind, type SubjectKind } from "@/lib/records/kinds";
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
  | { kind: "publications"; list: PublicationList }
  /** A record of a kind declared with its operation (its `record` schema): named by its export name. */
  | { kind: "declared"; exportName: string; record: Record<string, unknown> };

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

const isTableKind = (subject: string): subject is SubjectKind => recordKinds.some((kind) => kind.subject === subject);

/**
 * The line of a kind of one record declared with its operation: its values read with its record
 * schema (bare, or in the `data` wrapper its access name gives), stored in the schema's key order
 * by the generic writer (lib/connectors/store-records.ts), its id in the field its row names.
 */
const declaredLine = (kind: RecordKind, schema: NonNullable<RecordKind["record"]>): ImportLine<ImportRecord> =>
  singleLine({
    kind,
    describe: `a ${kind.label.toLowerCase()} record (${kind.file.idField})`,
    schema,
    id: (value) => String(value[kind.file.idField]),
    json: (value) => schemaOrderedJson(schema, value),
    data: (record) => ({ kind: "declared", exportName: kind.exportName, record }),
    upsert: (tx, values, source) =>
      upsertSingleRecords(tx, kind, values.map((value) => ({ id: String(value[kind.file.idField]), json: schemaOrderedJson(schema, value) })), source),
  });

const lineOf = (kind: RecordKind): ImportLine<ImportRecord>[] => {
  if (isTableKind(kind.subject)) return [lines[kind.subject]];
  return kind.record === undefined || kind.tables.entries !== undefined ? [] : [declaredLine(kind, kind.record)];
};

/** The lines of the registry's kinds, in its order: batches are written in it, the "not a record" message lists it. */
export const importLinesOf = (operations: Registry = registry): readonly ImportLine<ImportRecord>[] => kindsOf(operations).flatMap(lineOf);

/** The lines in the kinds table's order, for the process's registry. */
export const importLines: readonly ImportLine<ImportRecord>[] = recordKinds.map((kind) => lines[kind.subject]);

/**
 * The order a value is claimed in: a list by its entries' field first (a list's entries may
 * carry any other field), a single record (by its id or its wrapper) last.
 */
export const claimOrderOf = (ordered: readonly ImportLine<ImportRecord>[]): readonly ImportLine<ImportRecord>[] =>
  [...ordered].sort((first, second) => Number(first.kind.tables.entries === undefined) - Number(second.kind.tables.entries === undefined));

export const claimOrder: readonly ImportLine<ImportRecord>[] = claimOrderOf(importLines);
