import type { ImportRecord } from "@/lib/import/records";
import { subjectKey } from "@/lib/records/canonical-subject";
import type { SubjectKind } from "@/lib/records/subject-kinds";

/**
 * What an import may not store: a suppressed subject's record is skipped, and a suppressed
 * pin-board user is left out of the follower lists it appears in. Each is reported like a bad
 * record (`npm run import` exits 3), naming the subject. Subjects compare in their canonical spelling.
 */
export type Screened = { record: ImportRecord | null; problems: string[] };

export const screenSuppressed = (record: ImportRecord, suppressed: ReadonlyMap<SubjectKind, ReadonlySet<string>>): Screened => {
  const has = (kind: SubjectKind, subject: string) => suppressed.get(kind)?.has(subjectKey(kind, subject)) ?? false;
  const skipped = (what: string): Screened => ({ record: null, problems: [`${what} is suppressed: skipped`] });
  if (record.kind === "event") return has("event", record.event.event_id) ? skipped(`event ${record.event.event_id}`) : { record, problems: [] };
  if (record.kind === "publications") return has("profile", record.list.urn) ? skipped(`profile ${record.list.urn}`) : { record, problems: [] };
  const { list } = record;
  if (has("pin_user", list.userid)) return skipped(`pin-board user ${list.userid}`);
  const users = suppressed.get("pin_user");
  if (!users || users.size === 0) return { record, problems: [] };
  const problems = list.followers.flatMap((entry, index) =>
    has("pin_user", entry.node.entityId) ? [`followers.${index}: pin-board user ${entry.node.entityId} is suppressed: left out`] : [],
  );
  if (problems.length === 0) return { record, problems };
  const followers = list.followers.filter((entry) => !has("pin_user", entry.node.entityId));
  return { record: { kind: "followers", list: { ...list, followers } }, problems };
};
