import fs from "node:fs";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/lib/db/client";
import { importFiles, type ImportReport } from "./importer";
import { isReadableText, NOT_UTF8_MESSAGE } from "./text-encoding";

/**
 * An import uploaded through the admin page: the request body is streamed to a temporary file
 * (never held in memory), then imported by the same code as the CLI, with the same checks.
 * The file's name only chooses the format (.json vs NDJSON), as it does for the CLI.
 */
const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

export class UploadTooLargeError extends Error {
  constructor() {
    super(`the upload is larger than ${MAX_UPLOAD_BYTES / 1024 ** 3} GB`);
  }
}

/** Nothing was imported: the file is neither UTF-8 nor UTF-16 with a byte-order mark. */
export class UploadNotTextError extends Error {
  constructor() {
    super(NOT_UTF8_MESSAGE);
  }
}

export type UploadReport = {
  imported: number;
  written: number;
  unchanged: number;
  skipped: number;
  aborted: boolean;
  errors: { line: number; message: string }[];
  counts: { events: number; followerLists: number; followers: number; publicationLists: number; publications: number };
};

const safeExtension = (name: string): string => {
  const extension = path.extname(name).toLowerCase();
  return [".json", ".ndjson", ".jsonl"].includes(extension) ? extension : ".ndjson";
};

const spool = async (body: ReadableStream<Uint8Array>, file: string): Promise<number> => {
  const out = fs.createWriteStream(file, { mode: 0o600 });
  const reader = body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_UPLOAD_BYTES) throw new UploadTooLargeError();
      if (!out.write(value)) await once(out, "drain");
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    out.end();
    await once(out, "close");
  }
  return bytes;
};

const toUploadReport = (report: ImportReport): UploadReport => ({
  imported: report.records,
  written: report.written,
  unchanged: report.unchanged,
  skipped: report.skipped,
  aborted: report.aborted,
  errors: report.problems.map((problem) => ({ line: problem.line, message: problem.message })),
  counts: {
    events: report.events,
    followerLists: report.followerLists,
    followers: report.followers,
    publicationLists: report.publicationLists,
    publications: report.publications,
  },
});

export const importUpload = async (
  db: Db,
  body: ReadableStream<Uint8Array>,
  options: { name: string; strict: boolean; maxRecordBytes?: number },
): Promise<UploadReport> => {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), "sl-upload-"));
  const file = path.join(directory, `upload${safeExtension(options.name)}`);
  try {
    await spool(body, file);
    if (!(await isReadableText(file))) throw new UploadNotTextError();
    const report = await importFiles(db, [{ path: file, name: options.name }], {
      strict: options.strict,
      maxRecordBytes: options.maxRecordBytes,
    });
    return toUploadReport(report);
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
};
