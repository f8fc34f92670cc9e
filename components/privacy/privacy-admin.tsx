"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Select } from "@/components/admin/select";
import { Button, buttonStyles } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { FormCard } from "@/components/ui/form-card";
import { Input, verbatimText } from "@/components/ui/input";
import { LoadError } from "@/components/ui/load-error";
import { SubmitButton } from "@/components/ui/submit-button";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";
import { errorMessage, formatDateTime } from "@/components/keys/format";
import { operationDescriptors } from "@/lib/operations/descriptors";
import { subjectKindLabels, type SubjectKind } from "@/lib/records/subject-kinds";
import { liftSuppression, privacyKeys, subjectAccessUrl, suppress, suppressionsQuery, type SuppressionView } from "@/lib/query/privacy";

// The kinds come from the operations: each says which subject its input names.
const kinds = [...new Set(operationDescriptors.flatMap((operation) => (operation.subjectKind ? [operation.subjectKind] : [])))];

function LiftRow({ entry }: { entry: SuppressionView }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const lift = useMutation({
    mutationFn: liftSuppression,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: privacyKeys.suppressions }),
  });
  const label = `${subjectKindLabels[entry.kind].label} ${entry.subject}`;
  return (
    <TableRow data-testid={`suppression-${entry.kind}-${entry.subject}`}>
      <TableCell>{subjectKindLabels[entry.kind].label}</TableCell>
      <TableCell className="font-mono text-xs break-all">{entry.subject}</TableCell>
      <TableCell>{entry.reason}</TableCell>
      <TableCell className="whitespace-nowrap">
        {entry.createdByEmail}
        <span className="block text-xs text-muted">
          <time dateTime={entry.createdAt}>{formatDateTime(entry.createdAt)}</time>
        </span>
      </TableCell>
      <TableCell>
        {open ? (
          <form
            className="flex flex-col gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              lift.mutate({ kind: entry.kind, subject: entry.subject, reason });
            }}
          >
            <Input label={`Why lift ${label}?`} value={reason} onChange={(event) => setReason(event.target.value)} required />
            <div className="flex gap-1">
              <SubmitButton pending={lift.isPending} pendingLabel="Lifting…" size="sm">
                Confirm lift
              </SubmitButton>
              <Button variant="ghost" size="sm" onClick={() => setOpen(false)}>
                Cancel
              </Button>
            </div>
            <FormAlert error={lift.error ? errorMessage(lift.error) : undefined} />
          </form>
        ) : (
          <Button variant="ghost" size="sm" onClick={() => setOpen(true)}>
            Lift<span className="sr-only"> {label}</span>
          </Button>
        )}
      </TableCell>
    </TableRow>
  );
}

/** Admin → Privacy: suppress a subject, download what is held about one, and lift suppressions. */
export function PrivacyAdmin() {
  const queryClient = useQueryClient();
  const list = useQuery(suppressionsQuery());
  const [kind, setKind] = useState<SubjectKind>(kinds[0] ?? "event");
  const [subject, setSubject] = useState("");
  const [notice, setNotice] = useState<string>();
  const mutation = useMutation({
    mutationFn: suppress,
    onSuccess: async (done) => {
      const { records, followerEntries, batchPages, cachePages } = done.erased;
      setNotice(
        `Suppressed ${subjectKindLabels[done.kind].label.toLowerCase()} ${done.subject}: erased ${records} record(s), ` +
          `${followerEntries} follower entries, ${batchPages} batch page(s), ${cachePages} cached page(s).`,
      );
      setSubject("");
      await queryClient.invalidateQueries({ queryKey: privacyKeys.suppressions });
    },
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setNotice(undefined);
    const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
    mutation.mutate({ kind, subject, reason });
  };

  return (
    <div className="flex flex-col gap-6">
      <FormCard
        title="A subject"
        description="Download everything held about it (a subject-access request), or suppress it: its records are erased everywhere and it is never looked up, collected or imported again. Both are written to the audit log."
        onSubmit={onSubmit}
        pending={mutation.isPending}
        contentClassName="grid gap-4 sm:grid-cols-2"
        footerClassName="justify-end gap-2"
        footer={
          <>
            <a
              href={subject.trim() ? subjectAccessUrl(kind, subject) : undefined}
              aria-disabled={subject.trim() === ""}
              className={buttonStyles({ variant: "secondary" })}
              data-testid="subject-access-download"
              download
            >
              Download what we hold
            </a>
            <SubmitButton pending={mutation.isPending} pendingLabel="Suppressing…">
              Suppress and erase
            </SubmitButton>
          </>
        }
      >
        <Select label="Kind" value={kind} onChange={(event) => setKind(event.target.value as SubjectKind)}>
          {kinds.map((option) => (
            <option key={option} value={option}>
              {subjectKindLabels[option].label}
            </option>
          ))}
        </Select>
        <Input
          label="Subject"
          value={subject}
          onChange={(event) => setSubject(event.target.value)}
          hint={subjectKindLabels[kind].hint}
          required
          {...verbatimText}
        />
        <Input label="Reason (for suppressing)" name="reason" className="sm:col-span-2" required hint="Kept in the audit log; never the erased data." />
        <div className="sm:col-span-2">
          <FormAlert error={mutation.error ? errorMessage(mutation.error) : undefined} success={notice} />
        </div>
      </FormCard>

      {list.isError ? (
        <LoadError message={`Suppressions could not be loaded: ${errorMessage(list.error)}`} testId="suppressions-error" onRetry={() => void list.refetch()} />
      ) : list.data === undefined ? (
        <p role="status" className="text-sm text-muted">
          Loading suppressions…
        </p>
      ) : list.data.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border-strong p-6 text-center text-sm text-muted" data-testid="suppressions-empty">
          No subject is suppressed.
        </p>
      ) : (
        <Table caption="Suppressed subjects, newest first" data-testid="suppressions-table">
          <TableHeaderRow columns={["Kind", "Subject", "Reason", "By, when", { label: "Actions", visuallyHidden: true }]} />
          <TableBody>
            {list.data.map((entry) => (
              <LiftRow key={`${entry.kind}:${entry.subject}`} entry={entry} />
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  );
}
