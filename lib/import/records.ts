import type { z } from "zod";
import { eventSchema, followerListSchema, publicationListSchema, type EventRecord } from "@/lib/records/records";
import { nodeIdFor } from "@/lib/records/node-id";
import type { FollowerList, PublicationList } from "@/lib/connectors/store-records";

/**
 * What one value of an import file is, checked with the API's own schemas (lib/records/records.ts):
 * an Event (bare, or as the API's `{event: …}`), a follower list `{userid, node_id?, followers}`
 * or a publication list `{urn, publications}`. Lists are checked entry by entry (see checkEntries),
 * so a list of 200,000 entries is never held twice.
 */
export type ImportRecord =
  | { kind: "event"; event: EventRecord }
  | { kind: "followers"; list: FollowerList }
  | { kind: "publications"; list: PublicationList };

type Classified = { ok: true; record: ImportRecord } | { ok: false; message: string };

const MAX_ISSUES = 3;

const describeIssues = (error: z.ZodError, prefix: (string | number)[] = []): string =>
  error.issues
    .slice(0, MAX_ISSUES)
    .map((issue) => {
      const where = [...prefix, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))].join(".");
      return `${where || "record"}: ${issue.message}`;
    })
    .join("; ") + (error.issues.length > MAX_ISSUES ? ` (and ${error.issues.length - MAX_ISSUES} more)` : "");

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks every entry of a list. The checked input is kept rather than zod's copy: a copy of
 * 200,000 entries would double the list's memory. That is sound because these schemas only
 * check (no transforms or defaults), and the record writers rebuild each entry field by field,
 * leaving out any extra key.
 */
const checkEntries = <Entry>(entries: unknown[], schema: z.ZodType<Entry>, field: string): { ok: true; entries: Entry[] } | { ok: false; message: string } => {
  for (let index = 0; index < entries.length; index += 1) {
    const parsed = schema.safeParse(entries[index]);
    if (!parsed.success) return { ok: false, message: describeIssues(parsed.error, [field, index]) };
  }
  // Every element passed the schema above.
  return { ok: true, entries: entries as Entry[] };
};

const followerHeader = followerListSchema.omit({ followers: true });
const publicationHeader = publicationListSchema.omit({ publications: true });
const followerEntry = followerListSchema.shape.followers.element;
const publicationEntry = publicationListSchema.shape.publications.element;

export const classifyRecord = (value: unknown): Classified => {
  if (!isObject(value)) return { ok: false, message: "expected a JSON object" };

  if ("followers" in value) {
    const header = followerHeader.safeParse(value);
    if (!header.success) return { ok: false, message: describeIssues(header.error) };
    if (!Array.isArray(value.followers)) return { ok: false, message: "followers: expected an array" };
    const { userid, node_id: nodeId } = header.data;
    if (nodeId !== undefined && nodeId !== nodeIdFor(userid)) {
      return { ok: false, message: `node_id: does not belong to userid ${userid} (expected ${nodeIdFor(userid)})` };
    }
    const entries = checkEntries(value.followers, followerEntry, "followers");
    if (!entries.ok) return entries;
    return { ok: true, record: { kind: "followers", list: { userid, followers: entries.entries } } };
  }

  if ("publications" in value) {
    const header = publicationHeader.safeParse(value);
    if (!header.success) return { ok: false, message: describeIssues(header.error) };
    if (!Array.isArray(value.publications)) return { ok: false, message: "publications: expected an array" };
    const entries = checkEntries(value.publications, publicationEntry, "publications");
    if (!entries.ok) return entries;
    return { ok: true, record: { kind: "publications", list: { urn: header.data.urn, publications: entries.entries } } };
  }

  const candidate = "event_id" in value ? value : isObject(value.event) ? value.event : null;
  if (candidate === null) {
    return {
      ok: false,
      message: "not a record: expected an event (event_id), a follower list (userid, followers) or a publication list (urn, publications)",
    };
  }
  const event = eventSchema.safeParse(candidate);
  if (!event.success) return { ok: false, message: describeIssues(event.error, candidate === value ? [] : ["event"]) };
  return { ok: true, record: { kind: "event", event: event.data } };
};

