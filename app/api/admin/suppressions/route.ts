import { consoleRoute } from "@/lib/console-api/handler";
import { suppressionBody } from "@/lib/privacy/console-schemas";
import { liftSuppression, listSuppressions, readSubject, suppressSubject } from "@/lib/privacy/suppressions";
import { services } from "@/lib/services";

const LIST_LIMIT = 1000;

/** Admin only: suppressed subjects, newest first. */
export const GET = consoleRoute({ role: "admin" }, async ({ db }) => ({
  suppressions: (await listSuppressions(db, LIST_LIMIT)).map((entry) => ({ ...entry, createdAt: entry.createdAt.toISOString() })),
}));

/** Suppresses a subject: its records are erased in the same transaction; lookups stop at once here. */
export const POST = consoleRoute({ role: "admin", body: suppressionBody, status: 201 }, async ({ user, body, ip, db }) => {
  const subject = readSubject(body.kind, body.subject);
  const erased = await suppressSubject(db, { id: user.id, email: user.email, ip }, subject, body.reason);
  (await services()).connector.clearCache();
  return { ...subject, erased };
});

/** Lifts a suppression: the subject may be collected again (nothing erased comes back). */
export const DELETE = consoleRoute({ role: "admin", body: suppressionBody }, async ({ user, body, ip, db }) => {
  const subject = readSubject(body.kind, body.subject);
  await liftSuppression(db, { id: user.id, email: user.email, ip }, subject, body.reason);
  (await services()).connector.clearCache();
  return { ...subject, lifted: true };
});
