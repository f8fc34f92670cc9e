import type { z } from "zod";
import { nodeIdFor } from "./node-id";
import { eventIdOf, pinUserIdOf, profileUrnOf } from "./subject-ids";

/**
 * The kinds of record the store holds, each declared once: what a data subject of that kind is
 * called (suppression, erasure and subject access), how the upstream cache names its pages, what
 * an export file calls it, where its rows live, which environment variable sets its cache TTL, and
 * its label. Privacy, import and export, the upstream cache and the demo data loop over this table
 * instead of branching on a kind; an operation names the kind its answers are records of.
 *
 * Browser-safe data except `tables`, `file`, `access` and the functions, which only the server reads.
 */
export type RecordKind = {
  /** The data subject's kind: what a suppression or a subject access request names ("pin_user"). */
  subject: string;
  /** `upstream_pages.kind` of this kind's cached pages ("followers"). */
  cacheKind: string;
  /** What an export names this kind ("followers": `npm run export -- followers`). */
  exportName: string;
  /** The environment variable of its upstream cache's time to live, in seconds. */
  ttlVariable: `CACHE_TTL_${string}_S`;
  /**
   * Its TTL when the variable is unset, for a kind that declares it here: lib/env.ts reads the
   * variable generically (cacheTtlSeconds). The first kinds' variables are lines of lib/env.ts.
   */
  ttlDefaultS?: number;
  /**
   * The DDL of its tables, a file of CREATE TABLE IF NOT EXISTS statements (path from the app's
   * root), applied by the database opener for the kinds the registry names (lib/database.ts).
   * The first kinds' tables are in the numbered migrations.
   */
  schemaSql?: string;
  /**
   * The record's zod schema, for a kind of one record declared with its operation: its import
   * line reads a value with it and the generic writer stores it (lib/import/lines.ts). The first
   * kinds have lines of their own there.
   */
  record?: z.ZodType<Record<string, unknown>>;
  /** Shown to a person: "Pin-board user", and what its id looks like. */
  label: string;
  hint: string;
  /**
   * Where its records live. `owners` holds one row per subject (id, source, fetched_at); a kind
   * whose record is a list keeps its entries in `entries`, one row per position, and the list's
   * length in the owner's `countColumn`.
   */
  tables: {
    owners: string;
    idColumn: string;
    entries?: {
      table: string;
      ownerColumn: string;
      countColumn: string;
      /** The list's field in a file line and a subject access document ("followers"). */
      field: string;
      /** Entries that are themselves data subjects: of which kind, and where the entry's id is. */
      subjects?: { kind: string; path: readonly [string, ...string[]] };
    };
    /** The owner's node id column, written beside its id (pin-board users). */
    nodeIdColumn?: string;
    /** Paging cursors the upstream cache keeps per subject, erased with it. */
    cursors?: { table: string; ownerColumn: string };
  };
  /**
   * A file line's names (import, export): the owner's id field and, for a list, its node id field.
   * A kind without entries is written as its record alone.
   */
  file: { idField: string; nodeIdField?: string };
  /** What a subject access document calls the subject's stored record ("followerList"). */
  access: string;
  /** The subject's one spelling, or null when the text is not one of this kind. */
  canonical(raw: string): string | null;
  /** Other texts naming the subject in a stored query or record (a pin-board user's node id). */
  otherNames?(subject: string): string[];
  /**
   * The LIKE pattern (on the lower-cased id) narrowing where the store may keep other spellings of
   * the subject, for a kind whose ids are not plain digits; digit ids are found with their zeros.
   */
  spellingPattern?(subject: string): string;
};

export const recordKinds = [
  {
    subject: "event",
    cacheKind: "event",
    exportName: "events",
    ttlVariable: "CACHE_TTL_EVENTS_S",
    label: "Event",
    hint: "an event id (digits) or an event page URL",
    tables: { owners: "events", idColumn: "event_id" },
    file: { idField: "event_id" },
    access: "event",
    canonical: (raw) => eventIdOf(raw.trim()),
  },
  {
    subject: "pin_user",
    cacheKind: "followers",
    exportName: "followers",
    ttlVariable: "CACHE_TTL_FOLLOWERS_S",
    label: "Pin-board user",
    hint: "a user id (digits) or a node id",
    tables: {
      owners: "pin_users",
      idColumn: "user_id",
      entries: {
        table: "pin_followers",
        ownerColumn: "user_id",
        countColumn: "follower_count",
        field: "followers",
        subjects: { kind: "pin_user", path: ["node", "entityId"] },
      },
      nodeIdColumn: "node_id",
      cursors: { table: "upstream_cursors", ownerColumn: "user_id" },
    },
    file: { idField: "userid", nodeIdField: "node_id" },
    access: "followerList",
    canonical: (raw) => pinUserIdOf(raw.trim()),
    otherNames: (subject) => [nodeIdFor(subject)],
  },
  {
    subject: "profile",
    cacheKind: "publications",
    exportName: "publications",
    ttlVariable: "CACHE_TTL_PUBLICATIONS_S",
    label: "Profile",
    hint: "a profile URN (urn:li:…)",
    tables: {
      owners: "profiles",
      idColumn: "urn",
      entries: { table: "publications", ownerColumn: "urn", countColumn: "publication_count", field: "publications" },
    },
    file: { idField: "urn" },
    access: "publicationList",
    canonical: (raw) => profileUrnOf(raw.trim()),
    spellingPattern: (subject) => `urn:li:${subject.split(":")[2] ?? ""}:%`,
  },
] as const satisfies readonly RecordKind[];

/** The kinds of data subject: one per kind of record. */
export type SubjectKind = (typeof recordKinds)[number]["subject"];

export const recordKindOf = (subject: string, kinds: readonly RecordKind[] = recordKinds): RecordKind | undefined =>
  kinds.find((kind) => kind.subject === subject);

/** The kind of record of a subject kind (every subject kind has one: it is read from this table). */
export const kindOf = (subject: SubjectKind): RecordKind => {
  const kind = recordKindOf(subject);
  if (kind === undefined) throw new Error(`no record kind for subject kind ${subject}`);
  return kind;
};

/** The kinds whose list entries are subjects of this kind (pin-board users in follower lists). */
export const kindsListing = (subject: string, kinds: readonly RecordKind[] = recordKinds): RecordKind[] =>
  kinds.filter((kind) => kind.tables.entries?.subjects?.kind === subject);

/** The kind of record of a subject kind among `kinds` (an extended registry's, say); throws when none. */
export const kindIn = (kinds: readonly RecordKind[], subject: string): RecordKind => {
  const kind = recordKindOf(subject, kinds);
  if (kind === undefined) throw new Error(`no record kind for subject kind ${subject}`);
  return kind;
};
