import type { Queryable } from "@/lib/db/client";
import type { RecordKind } from "@/lib/records/kinds";
import type { AnswerSubjects } from "./source";
import type { StoreConnector } from "./store";
import type { LookupResult } from "./types";

/**
 * The suppression guard every lookup passes, whatever the channel (/v1, console, batches, MCP)
 * and the source (store or provider): a suppressed subject is not found — so the pipeline answers
 * the operation's 404 and charges nothing — and the wrapped connector, hence the provider, is
 * never asked. An answer whose own subject is suppressed is not found either, and the entries it
 * lists (a user's followers) leave out suppressed subjects. The subjects are those of the source's
 * record kind, compared in the kind's canonical spelling (lib/records/kinds.ts), so no other
 * spelling of one gets through.
 *
 * The list of suppressed subjects is read from the database at most once per `refreshMs` and at
 * once after clearCache() (called by this instance's suppress and lift), so another instance
 * follows a change within `refreshMs`.
 */
export type SuppressedSubjects = ReadonlyMap<string, ReadonlySet<string>>;

/** Every suppressed subject, by kind, in its canonical form: lib/privacy reads them (suppressedSubjects), lib/services.ts wires it. */
export type SuppressedSubjectsReader = (db: Queryable) => Promise<SuppressedSubjects>;

export type SuppressionList = {
  current(): Promise<SuppressedSubjects>;
  invalidate(): void;
};

export const createSuppressionList = (deps: {
  db: () => Promise<Queryable>;
  read: SuppressedSubjectsReader;
  refreshMs?: number;
  now?: () => number;
}): SuppressionList => {
  const refreshMs = deps.refreshMs ?? 1000;
  const now = deps.now ?? Date.now;
  let loaded: { at: number; subjects: Promise<SuppressedSubjects> } | null = null;
  return {
    current: () => {
      if (loaded === null || now() - loaded.at >= refreshMs) {
        const subjects = deps.db().then(deps.read);
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

const NONE: Subjects = new Set();
const NOT_FOUND: LookupResult = { found: false };

const isSuppressed = (subjects: Subjects, kind: RecordKind, raw: string) => subjects.size > 0 && subjects.has(kind.canonical(raw) ?? raw);

/**
 * The answer as it may go out: not found when its own subject is suppressed, without its
 * suppressed entries (the JSON text untouched when it lists none).
 */
const screened = <Data>(result: LookupResult, kind: RecordKind, shown: AnswerSubjects<Data>, subjects: Subjects): LookupResult => {
  if (!result.found || subjects.size === 0) return result;
  const data: Data = JSON.parse(result.dataJson);
  const own = shown.own?.(data) ?? null;
  if (own !== null && isSuppressed(subjects, kind, own)) return NOT_FOUND;
  if (!shown.entries) return result;
  const kept = shown.entries(data, (subject) => !isSuppressed(subjects, kind, subject));
  return kept === data ? result : { ...result, dataJson: JSON.stringify(kept) };
};

/**
 * The subject a lookup names is checked before any cache or provider is asked; the subjects the
 * answer shows are read against the list as it is then, so an answer that was on its way when its
 * subject was suppressed does not go out either.
 */
export const withSuppression = <Connector extends StoreConnector>(connector: Connector, list: SuppressionList): Connector => ({
  ...connector,
  lookup: async (source, params, context) => {
    const { kind } = source;
    const subjects = async (): Promise<Subjects> => (await list.current()).get(kind.subject) ?? NONE;
    if (isSuppressed(await subjects(), kind, source.subject(params))) return NOT_FOUND;
    const result = await connector.lookup(source, params, context);
    return source.answerSubjects ? screened(result, kind, source.answerSubjects, await subjects()) : result;
  },
  clearCache: () => {
    list.invalidate();
    connector.clearCache();
  },
});
