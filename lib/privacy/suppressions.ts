import { recordAudit, type Actor } from "@/lib/audit/log";
import type { Db, Queryable } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { eraseSubject, type Erased } from "./erase";
import { kindIn } from "@/lib/records/kinds";
import { kindsOf, registry, type Registry } from "@/lib/operations";
import { subjectKeyIn, subjectKinds, type Subject } from "./subjects";

/**
 * Suppression: an admin's "delete everything about this subject and never collect it again".
 * Suppressing records the subject and erases its records in one transaction, with an audit entry
 * (who, when, why, and how many records went — never the records). From then on every channel
 * answers a lookup of it as not found (lib/connectors/suppression.ts), imports skip it, and
 * lifting the suppression lets it be collected again (nothing comes back by itself).
 */
export type Suppression = Subject & { reason: string; createdByEmail: string; createdAt: Date };

export const SUPPRESSION_TARGET = "subject";

/** The subject as the input names it, in its canonical form; invalid_request when it is not one. */
export const readSubject = (kind: string, raw: string, operations: Registry = registry): Subject => {
  const known = subjectKinds(operations).find((candidate) => candidate === kind);
  if (!known) throw new DomainError("invalid_request", `kind must be one of: ${subjectKinds(operations).join(", ")}.`);
  const subject = kindIn(kindsOf(operations), known).canonical(raw);
  if (subject === null) throw new DomainError("invalid_request", `subject is not a valid ${known.replace("_", " ")} id.`);
  return { kind: known, subject };
};

const targetId = (subject: Subject) => `${subject.kind}:${subject.subject}`;

export const suppressSubject = async (db: Db, actor: Actor, subject: Subject, reason: string, operations: Registry = registry): Promise<Erased> =>
  db.transaction(async (tx) => {
    const added = await tx.query(
      `INSERT INTO suppressions (kind, subject, reason, created_by, created_by_email) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (kind, subject) DO NOTHING RETURNING subject`,
      [subject.kind, subject.subject, reason, actor.id, actor.email],
    );
    if (added.length === 0) throw new DomainError("invalid_request", "This subject is already suppressed.");
    const erased = await eraseSubject(tx, subject, operations);
    await recordAudit(tx, actor, "subject.suppress", { type: SUPPRESSION_TARGET, id: targetId(subject) }, { reason, erased });
    return erased;
  });

export const liftSuppression = async (db: Db, actor: Actor, subject: Subject, reason: string): Promise<void> =>
  db.transaction(async (tx) => {
    const lifted = await tx.query("DELETE FROM suppressions WHERE kind = $1 AND subject = $2 RETURNING subject", [subject.kind, subject.subject]);
    if (lifted.length === 0) throw new DomainError("not_found", "This subject is not suppressed.");
    await recordAudit(tx, actor, "subject.lift", { type: SUPPRESSION_TARGET, id: targetId(subject) }, { reason });
  });

type SuppressionRow = { kind: string; subject: string; reason: string; created_by_email: string; created_at: Date | string };

/** Newest first, at most `limit`. */
export const listSuppressions = async (db: Queryable, limit: number): Promise<Suppression[]> => {
  const rows = await db.query<SuppressionRow>(
    "SELECT kind, subject, reason, created_by_email, created_at FROM suppressions ORDER BY created_at DESC, kind, subject LIMIT $1",
    [limit],
  );
  return rows.map((row) => ({
    kind: row.kind,
    subject: row.subject,
    reason: row.reason,
    createdByEmail: row.created_by_email,
    createdAt: new Date(row.created_at),
  }));
};

/**
 * Every suppressed subject, by kind, in its canonical form: what the lookup guard and imports
 * check against (rows are stored canonical; reading them so again costs little and holds whatever wrote them).
 */
export const suppressedSubjects = async (db: Queryable, operations: Registry = registry): Promise<Map<string, Set<string>>> => {
  const rows = await db.query<{ kind: string; subject: string }>("SELECT kind, subject FROM suppressions");
  const byKind = new Map<string, Set<string>>();
  for (const row of rows) byKind.set(row.kind, (byKind.get(row.kind) ?? new Set()).add(subjectKeyIn(operations, row.kind, row.subject)));
  return byKind;
};
