import type { Queryable } from "@/lib/db/client";
import { suppressedSubjects } from "@/lib/privacy/suppressions";
import type { SubjectKind } from "@/lib/privacy/subject-kinds";
import type { StoreConnector } from "./store";
import type { LookupResult } from "./types";

/**
 * The suppression guard every lookup passes, whatever the channel (/v1, console, batches, MCP)
 * and the source (store or provider): a suppressed subject is not found — so the pipeline answers
 * the operation's 404 and charges nothing — and the wrapped connector, hence the provider, is
 * never asked. A suppressed pin-board user is also left out of other users' follower pages.
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

type FollowersPage = { followers: { node: { entityId: string } }[] };

/** A follower page without suppressed users (the JSON text untouched when it holds none). */
const withoutSuppressed = (result: LookupResult, users: ReadonlySet<string>): LookupResult => {
  if (!result.found || users.size === 0) return result;
  const data = JSON.parse(result.dataJson) as FollowersPage;
  const kept = data.followers.filter((entry) => !users.has(entry.node.entityId));
  if (kept.length === data.followers.length) return result;
  return { ...result, dataJson: JSON.stringify({ ...data, followers: kept }) };
};

export const withSuppression = <Connector extends StoreConnector>(connector: Connector, list: SuppressionList): Connector => {
  const suppressed = async (kind: SubjectKind, subject: string) => (await list.current()).get(kind)?.has(subject) ?? false;
  return {
    ...connector,
    event: async (eventId, context) => ((await suppressed("event", eventId)) ? { found: false } : connector.event(eventId, context)),
    followers: async (query, context) => {
      const users = (await list.current()).get("pin_user") ?? new Set<string>();
      if (users.has(query.userId)) return { found: false };
      return withoutSuppressed(await connector.followers(query, context), users);
    },
    publications: async (urn, page, context) =>
      (await suppressed("profile", urn)) ? { found: false } : connector.publications(urn, page, context),
    clearCache: () => {
      list.invalidate();
      connector.clearCache();
    },
  };
};
