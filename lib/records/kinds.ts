import { canonicalSubject } from "./canonical-subject";
import type { SubjectKind } from "./subject-kinds";

/**
 * The kinds of record the store holds, each declared once: what a data subject of that kind is
 * called (suppression, erasure and subject access), how the upstream cache names its pages, what
 * an export file calls it, where its rows live, which environment variable sets its cache TTL, and
 * its label. Privacy, import and export, the upstream cache and the demo data loop over this table
 * instead of branching on a kind; an operation names the kind its answers are records of.
 *
 * Browser-safe data except `tables` and `canonical`, which only the server reads.
 */
export type RecordKind = {
  /** The data subject's kind: what a suppression or a subject access request names ("pin_user"). */
  subject: SubjectKind;
  /** `upstream_pages.kind` of this kind's cached pages ("followers"). */
  cacheKind: string;
  /** What an export names this kind ("followers": `npm run export -- followers`). */
  exportName: string;
  /** The environment variable of its upstream cache's time to live, in seconds. */
  ttlVariable: `CACHE_TTL_${string}_S`;
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
    entries?: { table: string; ownerColumn: string; countColumn: string };
  };
  /** The subject's one spelling, or null when the text is not one of this kind. */
  canonical(raw: string): string | null;
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
    canonical: (raw) => canonicalSubject("event", raw),
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
      entries: { table: "pin_followers", ownerColumn: "user_id", countColumn: "follower_count" },
    },
    canonical: (raw) => canonicalSubject("pin_user", raw),
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
      entries: { table: "publications", ownerColumn: "urn", countColumn: "publication_count" },
    },
    canonical: (raw) => canonicalSubject("profile", raw),
  },
] as const satisfies readonly RecordKind[];

export const recordKindOf = (subject: string, kinds: readonly RecordKind[] = recordKinds): RecordKind | undefined =>
  kinds.find((kind) => kind.subject === subject);
