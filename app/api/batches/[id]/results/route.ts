import { batchOperationById } from "@/lib/batches/operations";
import { findBatch } from "@/lib/batches/repository";
import { csvChunks, ndjsonChunks, textStream, withLeading } from "@/lib/batches/results";
import { UTF8_BOM } from "@/lib/export/bom";
import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { withExportSlot } from "@/lib/export/gate";

export const dynamic = "force-dynamic";

/**
 * GET /api/batches/{id}/results?format=csv|ndjson — streamed as it is read from the database.
 * `&bom=1` (the console's download link) starts a CSV with a UTF-8 byte-order mark, which Excel
 * needs to read it as UTF-8; scripts leave it off and get the plain text.
 */
export const GET = consoleRoute({}, async ({ user, params, query, db, request }) =>
  withExportSlot(request.signal, async () => {
    const format = query.get("format") ?? "csv";
    if (format !== "csv" && format !== "ndjson") throw new DomainError("invalid_request", 'format must be "csv" or "ndjson".');
    const batch = await findBatch(db, user, params.id ?? "");
    const operation = batchOperationById(batch.operation);
    if (!operation) throw notFound("This batch's operation is no longer offered.");
    const chunks =
      format === "csv"
        ? withLeading(query.get("bom") === "1" ? UTF8_BOM : "", csvChunks(db.longReads, batch.id, operation))
        : ndjsonChunks(db.longReads, batch.id, operation);
    const name = `batch-${batch.id.slice(0, 8)}-${operation.id}.${format}`;
    return new Response(textStream(chunks), {
      headers: {
        "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
        "Content-Disposition": `attachment; filename="${name}"`,
        "Cache-Control": "no-store",
      },
    });
  }),
);
