import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { importUpload, UploadNotTextError, UploadTooLargeError } from "@/lib/import/upload";
import { env } from "@/lib/env";
import { services } from "@/lib/services";

export const dynamic = "force-dynamic";

/**
 * An admin uploads a snapshot file as the raw request body (?name=FILE.ndjson|.json, &strict=1):
 * the same checks as `npm run import`; answers {imported, skipped, errors: [{line, message}], ...}.
 */
export const POST = consoleRoute({ role: "admin" }, async ({ request, query, db }) => {
  if (!request.body) throw new DomainError("empty_upload", "Choose a file to upload.");
  const strict = query.get("strict") === "1" || query.get("strict") === "true";
  const name = (query.get("name") ?? "upload.ndjson").slice(0, 200);
  try {
    const report = await importUpload(db, request.body, { name, strict, maxRecordBytes: env().IMPORT_MAX_RECORD_BYTES });
    if (report.written > 0) (await services()).connector.clearCache();
    return report;
  } catch (error) {
    if (error instanceof UploadTooLargeError) throw new DomainError("upload_too_large", `The file is too large: ${error.message}.`);
    if (error instanceof UploadNotTextError) throw new DomainError("not_utf8", error.message);
    throw error;
  }
});
