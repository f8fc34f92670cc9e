import { recordAudit } from "@/lib/audit/log";
import { consoleRoute } from "@/lib/console-api/handler";
import { subjectAccess } from "@/lib/privacy/subject-access";
import { readSubject, SUPPRESSION_TARGET } from "@/lib/privacy/suppressions";

/** Admin only: everything held about a subject, as one JSON document to download; audited. */
export const GET = consoleRoute({ role: "admin" }, async ({ user, params, ip, db }) => {
  const subject = readSubject(params.kind ?? "", params.subject ?? "");
  const document = await subjectAccess(db, subject);
  await recordAudit(db, { id: user.id, email: user.email, ip }, "subject.access", { type: SUPPRESSION_TARGET, id: `${subject.kind}:${subject.subject}` });
  const file = `subject-${subject.kind}-${subject.subject.replace(/[^A-Za-z0-9_-]/g, "_")}.json`;
  return new Response(JSON.stringify(document, null, 2), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${file}"`,
      "Cache-Control": "no-store",
    },
  });
});
