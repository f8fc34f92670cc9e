"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { FormAlert } from "@/components/ui/form-alert";
import { fileInputClass } from "@/components/ui/input";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormCard } from "@/components/ui/form-card";
import { Table, TableBody, TableHead } from "@/components/ui/table";
import type { UploadReport } from "@/lib/import/upload";
import { fetchJson } from "@/lib/query/fetch-json";
import { SubmitButton } from "@/components/ui/submit-button";

const upload = ({ file, strict }: { file: File; strict: boolean }) =>
  fetchJson<UploadReport>(`/api/admin/import?name=${encodeURIComponent(file.name)}${strict ? "&strict=1" : ""}`, {
    method: "POST",
    body: file,
    headers: { "Content-Type": "application/octet-stream" },
  });

const count = (value: number) => value.toLocaleString();

/** Picks a file, sends it as the request body (streamed by the browser), and shows the import's report. */
export function UploadForm() {
  const [fieldError, setFieldError] = useState<string>();
  const mutation = useMutation({ mutationFn: upload });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const values = new FormData(event.currentTarget);
    const file = values.get("file");
    if (!(file instanceof File) || file.size === 0) {
      setFieldError("Choose a non-empty .ndjson or .json file.");
      return;
    }
    setFieldError(undefined);
    mutation.mutate({ file, strict: values.get("strict") === "on" });
  };

  const report = mutation.data;
  return (
    <>
      <FormCard
        title="Snapshot file"
        description={
          <>
            NDJSON (one record per line) or JSON (an array of records, or one record), in the API&apos;s own shapes:
            an event; <code className="font-mono">{"{userid, node_id, followers: […]}"}</code>;{" "}
            <code className="font-mono">{"{urn, publications: […]}"}</code>.
          </>
        }
        onSubmit={onSubmit}
        pending={mutation.isPending}
        contentClassName="flex max-w-lg flex-col gap-4"
        footer={
          <SubmitButton pending={mutation.isPending} pendingLabel="Uploading and importing…">
            Upload
          </SubmitButton>
        }
      >
        <div className="flex flex-col gap-1.5">
          <label htmlFor="upload-file" className="text-sm font-medium">
            File
          </label>
          <input
            id="upload-file"
            name="file"
            type="file"
            accept=".ndjson,.jsonl,.json,application/json,application/x-ndjson"
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? "upload-file-error" : undefined}
            className={fileInputClass}
          />
          {fieldError ? (
            <p id="upload-file-error" className="text-xs font-medium text-danger">
              {fieldError}
            </p>
          ) : null}
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="strict" className="size-4" />
          Strict: write nothing if any record is bad
        </label>
        <FormAlert error={mutation.error?.message} />
      </FormCard>

      {report ? (
        <Card>
          <CardHeader>
            <CardTitle as="h2">{report.aborted ? "Nothing was imported" : "Import finished"}</CardTitle>
            <CardDescription role="status">
              {report.aborted
                ? `Strict mode found ${count(report.skipped)} bad ${report.skipped === 1 ? "record" : "records"}; nothing was written.`
                : `${count(report.imported)} ${report.imported === 1 ? "record" : "records"} imported (${count(report.written)} written, ${count(report.unchanged)} already identical), ${count(report.skipped)} bad ${report.skipped === 1 ? "record" : "records"} skipped.`}
            </CardDescription>
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            <p className="text-sm text-muted">
              {count(report.counts.events)} events · {count(report.counts.followerLists)} follower lists ({count(report.counts.followers)}{" "}
              followers) · {count(report.counts.publicationLists)} publication lists ({count(report.counts.publications)} publications)
            </p>
            {report.errors.length > 0 ? (
              <Table caption="Bad records" showCaption>
                <TableHead>
                  <tr>
                    <th scope="col" className="px-4 py-2 font-medium">
                      Line
                    </th>
                    <th scope="col" className="px-4 py-2 font-medium">
                      Problem
                    </th>
                  </tr>
                </TableHead>
                <TableBody>
                  {report.errors.map((error, index) => (
                    <tr key={`${error.line}-${index}`} className="border-t border-border">
                      <td className="px-4 py-2 font-mono tabular-nums">{error.line}</td>
                      <td className="px-4 py-2">{error.message}</td>
                    </tr>
                  ))}
                </TableBody>
              </Table>
            ) : null}
            {report.skipped > report.errors.length ? (
              <p className="text-sm text-muted">Only the first {count(report.errors.length)} problems are listed.</p>
            ) : null}
          </CardContent>
        </Card>
      ) : null}
    </>
  );
}
