import type { EventRecord, FollowerEntry, Publication } from "@/lib/records/records";
import type { Queryable, Transaction } from "@/lib/db/client";
import type { z } from "zod";
import { kindOf, type RecordKind } from "@/lib/records/kinds";
import { nodeIdFor } from "@/lib/records/node-id";

/**
 * The only writer of the record store (events, pin-board followers, profile publications).
 * The demo seed, snapshot imports and the upstream cache all come through here, so every stored
 * record has the same canonical JSON text: the API's own field order, no extra keys, compact.
 * Lookups send that text to clients verbatim, which is why the order is fixed here and not left
 * to whoever built the object.
 */

export type FollowerList = { userid: string; followers: FollowerEntry[] };
export type PublicationList = { urn: string; publications: Publication[] };

// Rows per multi-row INSERT: few enough statements to be fast on PGlite, and parameters per
// statement (rows × 3) far below PostgreSQL's limit of 65,535.
const EVENT_ROWS_PER_STATEMENT = 500;
const LIST_ROWS_PER_STATEMENT = 1000;

type TransactionCapable = Queryable & {
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
};

const canBeginTransaction = (db: Queryable): db is TransactionCapable =>
  typeof (db as Partial<TransactionCapable>).transaction === "function";

/**
 * A list is replaced by a delete and several inserts; a reader must never see it half written.
 * Given a transaction (or any bare Queryable) the work joins it; given a Db it gets its own.
 */
const atomically = <T>(db: Queryable, work: (queryable: Queryable) => Promise<T>): Promise<T> =>
  canBeginTransaction(db) ? db.transaction(work) : work(db);

// Objects are rebuilt key by key (typed, so a missing field fails to compile) because
// JSON.stringify follows insertion order and input may come from any file or upstream shape.
export const eventJson = (event: EventRecord): string => {
  const ordered: EventRecord = {
    stats: event.stats,
    event_id: event.event_id,
    start_date: event.start_date,
    start_time: event.start_time,
    end_date: event.end_date,
    end_time: event.end_time,
    local_formatted_time: event.local_formatted_time,
    title: event.title,
    location_text: event.location_text,
    lat: event.lat,
    lng: event.lng,
    details: event.details,
    source: event.source,
    tags: event.tags,
    has_tickets: event.has_tickets,
    hosts: event.hosts,
    related_events: event.related_events.map((related) => ({
      event_id: related.event_id,
      url: related.url,
      title: related.title,
    })),
    responded_count: event.responded_count,
    cover_image_url: event.cover_image_url,
    location_place: event.location_place,
    location_from_details: {
      name: event.location_from_details.name,
      contextual_name: event.location_from_details.contextual_name,
    },
    is_canceled: event.is_canceled,
  };
  return JSON.stringify(ordered);
};

export const followerJson = (entry: FollowerEntry): string => {
  const { node } = entry;
  const ordered: FollowerEntry = {
    node: {
      username: node.username,
      status: node.status,
      fullName: node.fullName,
      imageMediumUrl: node.imageMediumUrl,
      imageXlargeUrl: node.imageXlargeUrl,
      entityId: node.entityId,
      isPrivateProfile: node.isPrivateProfile,
      verifiedIdentity: node.verifiedIdentity === null ? null : { verified: node.verifiedIdentity.verified },
      id: node.id,
      __typename: node.__typename,
    },
    cursor: entry.cursor,
  };
  return JSON.stringify(ordered);
};

export const publicationJson = (publication: Publication): string => {
  const ordered: Publication = {
    title: publication.title,
    publication: publication.publication,
    description: publication.description,
    date: publication.date,
    publication_url: publication.publication_url,
  };
  return JSON.stringify(ordered);
};

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
};

/**
 * Upserts events by event_id and returns how many distinct events were written. A later copy of
 * the same event_id in one call wins (PostgreSQL refuses to update one row twice per statement).
 */
export const upsertEvents = (db: Queryable, events: EventRecord[], source: string): Promise<number> =>
  upsertSingleRecords(db, kindOf("event"), events.map((event) => ({ id: event.event_id, json: eventJson(event) })), source);

/**
 * The store writer of any kind whose record is one JSON value (lib/records/kinds.ts without
 * `entries`): one row of its owners table per id — the id, the record's canonical text, its source
 * and when it was written. The last copy of an id wins; returns how many ids were written.
 */
export const upsertSingleRecords = async (
  db: Queryable,
  kind: RecordKind,
  records: readonly { id: string; json: string }[],
  source: string,
): Promise<number> => {
  const { owners, idColumn } = kind.tables;
  const byId = new Map<string, string>();
  for (const record of records) byId.set(record.id, record.json);
  for (const batch of chunks([...byId], EVENT_ROWS_PER_STATEMENT)) {
    // $1 is the source shared by every row; each row adds its id and record.
    const params: unknown[] = [source];
    const rows = batch.map(([id, record]) => {
      params.push(id, record);
      return `($${params.length - 1}::text, $${params.length}::json, $1::text, now())`;
    });
    await db.query(
      `INSERT INTO ${owners} (${idColumn}, record, source, fetched_at) VALUES ${rows.join(", ")}
       ON CONFLICT (${idColumn}) DO UPDATE
       SET record = EXCLUDED.record, source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at`,
      params,
    );
  }
  return byId.size;
};

/**
 * A record's canonical text from its zod schema: the schema's parse rebuilds every object in the
 * order its shape declares and drops keys it does not know, so the text is the same whoever built
 * the value — what a kind declaring its record by schema alone stores and answers.
 */
export const schemaOrderedJson = <Value>(schema: z.ZodType<Value>, value: Value): string => JSON.stringify(schema.parse(value));

/**
 * Writes records at positions 0..n-1 under one owner key; the table and column are never user
 * input. Records are serialised one statement's worth at a time, so a list of 200,000 never has
 * all its JSON text in memory at once.
 */
const insertPositioned = async <Item>(
  db: Queryable,
  target: { table: "pin_followers"; ownerColumn: "user_id" } | { table: "publications"; ownerColumn: "urn" },
  owner: string,
  items: readonly Item[],
  toJson: (item: Item) => string,
): Promise<void> => {
  for (let first = 0; first < items.length; first += LIST_ROWS_PER_STATEMENT) {
    const batch = items.slice(first, first + LIST_ROWS_PER_STATEMENT).map(toJson);
    // $1 is the owner shared by every row, $2 the position of the batch's first record.
    const params: unknown[] = [owner, first];
    const rows = batch.map((record, index) => {
      params.push(record);
      return `($1::text, $2::int + ${index}, $${params.length}::json)`;
    });
    await db.query(
      `INSERT INTO ${target.table} (${target.ownerColumn}, position, record) VALUES ${rows.join(", ")}`,
      params,
    );
  }
};

/** Upserts a pin-board user and replaces all of its followers; returns the follower count. */
export const upsertFollowerList = (db: Queryable, list: FollowerList, source: string): Promise<number> => {
  const records = list.followers;
  return atomically(db, async (queryable) => {
    await queryable.query(
      `INSERT INTO pin_users (user_id, node_id, follower_count, source, fetched_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (user_id) DO UPDATE
       SET node_id = EXCLUDED.node_id, follower_count = EXCLUDED.follower_count,
           source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at`,
      [list.userid, nodeIdFor(list.userid), records.length, source],
    );
    await queryable.query("DELETE FROM pin_followers WHERE user_id = $1", [list.userid]);
    await insertPositioned(queryable, { table: "pin_followers", ownerColumn: "user_id" }, list.userid, records, followerJson);
    return records.length;
  });
};

/** Upserts a profile and replaces all of its publications; returns the publication count. */
export const upsertPublicationList = (db: Queryable, list: PublicationList, source: string): Promise<number> => {
  const records = list.publications;
  return atomically(db, async (queryable) => {
    await queryable.query(
      `INSERT INTO profiles (urn, publication_count, source, fetched_at)
       VALUES ($1, $2, $3, now())
       ON CONFLICT (urn) DO UPDATE
       SET publication_count = EXCLUDED.publication_count, source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at`,
      [list.urn, records.length, source],
    );
    await queryable.query("DELETE FROM publications WHERE urn = $1", [list.urn]);
    await insertPositioned(queryable, { table: "publications", ownerColumn: "urn" }, list.urn, records, publicationJson);
    return records.length;
  });
};
