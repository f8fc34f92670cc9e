import type { Queryable } from "@/lib/db/client";
import { subjectKey } from "@/lib/records/canonical-subject";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import type { SubjectKind } from "@/lib/records/subject-kinds";
import { entityIdFromNodeId } from "@/lib/records/node-id";
import type { StoreConnector } from "./store";
import type { LookupResult } from "./types";

/**
 * The suppression guard every lookup passes, whatever the channel (/v1, console, batches, MCP)
 * and the source (store or provider): a suppressed subject is not found — so the pipeline answers
 * the operation's 404 and charges nothing — and the wrapped connector, hence the provider, is
 * never asked. A suppressed pin-board user is also left out of other users' follower pages.
 * Subjects are compared in their canonical spelling, so no other spelling of one gets through.
 *
 * The list of suppressed subjects is read from the database at most once per `refreshMs` and at
 * once after clearCache() (called by this instance's suppress and lift), so another instance
 * follows a change within `refreshMs`.
 */
export type SuppressionList = {
  current(): Promise<ReadonlyMap<SubjectKind, ReadonlySet<string>>>;
  invalidate(): void;
};

export const createSuppressionList = (deps: { db: () => Promise<Queryable>; refreshMs?: number; now?: () => number }): SuppressionList => {
  const refreshMs = deps.refreshMs ?? 1000;
  const now = deps.now ?? Date.now;
  let loaded: { at: number; subjects: Promise<ReadonlyMap<SubjectKind, ReadonlySet<string>>> } | null = null;
  return {
    current: () => {
      if (loaded === null || now() - loaded.at >= refreshMs) {
        const subjects = deps.db().then(suppressedSubjects);
        const entry = { at: now(), subjects };
        loaded = entry;
        // A failed read is not kept: the next lookup asks again.
        subjects.catch(() => {
          if (loaded === entry) loaded = null;
        });
      }
      return loaded.subjects;
    },
    invalidate: () => {
      loaded = null;
    },
  };
};

type Subjects = ReadonlySet<string>;
type FollowersPage = { followers: { node: { entityId: string } }[]; node_id?: string };

const NONE: Subjects = new Set();
const NOT_FOUND: LookupResult = { found: false };

const has = (subjects: Subjects, kind: SubjectKind, raw: string) => subjects.size > 0 && subjects.has(subjectKey(kind, raw));

/** Not found when the event that came back is itself suppressed, whichever spelling was asked. */
const unlessSuppressedEvent = (result: LookupResult, events: Subjects): LookupResult => {
  if (!result.found || events.size === 0) return result;
  const data = JSON.parse(result.dataJson) as { event?: { event_id?: unknown } };
  const eventId = data.event?.event_id;
  return typeof eventId === "string" && has(events, "event", eventId) ? NOT_FOUND : result;
};

/**
 * A follower page without suppressed users (the JSON text untouched when it holds none), or not
 * found when the page's own user is suppressed.
 */
const withoutSuppressed = (result: LookupResult, users: Subjects): LookupResult => {
  if (!result.found || users.size === 0) return result;
  const data = JSON.parse(result.dataJson) as FollowersPage;
  const owner = data.node_id === undefined ? null : entityIdFromNodeId(data.node_id);
  if (owner !== null && has(users, "pin_user", owner)) return NOT_FOUND;
  const kept = data.followers.filter((entry) => !has(users, "pin_user", entry.node.entityId));
  if (kept.length === data.followers.length) return result;
  return { ...result, dataJson: JSON.stringify({ ...data, followers: kept }) };
};

/**
 * Every subject is compared in its canonical form (lib/records/canonical-subject.ts): the one a
 * lookup names, before any cache or provider is asked, and the one the record that comes back
 * names as its own — read against the list as it is then, so an answer that was on its way when
 * its subject was suppressed does not go out either.
 */
export const withSuppression = <Connector extends StoreConnector>(connector: Connector, list: SuppressionList): Connector => {
  const subjectsOf = async (kind: SubjectKind): Promise<Subjects> => (await list.current()).get(kind) ?? NONE;
  return {
    ...connector,
    event: async (eventId, context) => {
      if (has(await subjectsOf("event"), "event", eventId)) return NOT_FOUND;
      const result = await connector.event(eventId, context);
      return unlessSuppressedEvent(result, await subjectsOf("event"));
    },
    followers: async (query, context) => {
      if (has(await subjectsOf("pin_user"), "pin_user", query.userId)) return NOT_FOUND;
      const result = await connector.followers(query, context);
      return withoutSuppressed(result, await subjectsOf("pin_user"));
    },
    publications: async (urn, page, context) =>
      has(await subjectsOf("profile"), "profile", urn) ? NOT_FOUND : connector.publications(urn, page, context),
    clearCache: () => {
      list.invalidate();
      connector.clearCache();
    },
  };
};
