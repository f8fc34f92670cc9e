"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Select } from "@/components/admin/select";
import { errorMessage, formatCount, parseWholeNumber } from "@/components/keys/format";
import { bindValue } from "@/components/ui/bind-value";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { ReasonField } from "@/components/ui/reason-field";
import { WholeNumberInput } from "@/components/ui/input";
import {
  grantPoolCredits,
  refreshWorkspaces,
  updateWorkspace,
  type AdminWorkspaceView,
  type PoolRefill,
  type WorkspacePatch,
} from "@/lib/query/workspace-admin";

/**
 * The actions of Admin → Workspaces' drawer, one form and one request each: grant credits to the
 * pool (with a reason for the audit log), set the pool's automatic refill, set the shared limit.
 */
const MAX_CREDITS = 1_000_000_000;
const MAX_QPS = 100_000;

type FormProps = { workspace: AdminWorkspaceView };

const Section = ({ title, children, testId }: { title: string; children: ReactNode; testId: string }) => {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3 border-t border-border pt-4" data-testid={testId}>
      <h3 id={headingId} className="text-sm font-semibold">
        {title}
      </h3>
      {children}
    </section>
  );
};

export function PoolGrantForm({ workspace }: FormProps) {
  const queryClient = useQueryClient();
  const [credits, setCredits] = useState("");
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState<{ credits?: string; reason?: string }>({});
  const [done, setDone] = useState<string>();
  const mutation = useMutation({
    mutationFn: (input: { credits: number; reason: string }) => grantPoolCredits(workspace.id, input),
    onSuccess: (updated, input) => {
      setCredits("");
      setReason("");
      setDone(`Granted ${formatCount(input.credits)} credits: the pool now has ${formatCount(updated.poolCredits)}.`);
    },
    onSettled: () => refreshWorkspaces(queryClient),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const amount = parseWholeNumber(credits);
    const trimmed = reason.trim();
    const found: { credits?: string; reason?: string } = {};
    if (amount === null || amount < 1 || amount > MAX_CREDITS) found.credits = `Enter a whole number from 1 to ${formatCount(MAX_CREDITS)}.`;
    if (trimmed.length < 3) found.reason = "Give a reason (at least 3 characters); it goes to the audit log.";
    else if (trimmed.length > 500) found.reason = "Keep the reason to 500 characters or fewer.";
    setErrors(found);
    setDone(undefined);
    if (amount === null || found.credits !== undefined || found.reason !== undefined) return;
    mutation.mutate({ credits: amount, reason: trimmed });
  };

  return (
    <Section title="Grant credits to the pool" testId="pool-grant">
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-3">
        <WholeNumberInput
          label="Credits to grant"
          required
          min={1}
          max={MAX_CREDITS}
          {...bindValue(credits, setCredits)}
          error={errors.credits}
          hint={`The pool has ${formatCount(workspace.poolCredits)} of ${formatCount(workspace.poolGranted)} credits granted so far.`}
          data-testid="pool-grant-credits"
        />
        <ReasonField value={reason} onChange={setReason} error={errors.reason} rows={2} testId="pool-grant-reason" />
        <FormAlert error={mutation.isError ? errorMessage(mutation.error) : undefined} success={done} />
        <div className="flex justify-end">
          <Button type="submit" disabled={mutation.isPending} data-testid="pool-grant-submit">
            {mutation.isPending ? "Granting…" : "Grant credits"}
          </Button>
        </div>
      </form>
    </Section>
  );
}

/** One PATCH of the workspace with its outcome sentence; the lists read again after. */
const usePatch = (workspaceId: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { patch: WorkspacePatch; note: string }) => updateWorkspace(workspaceId, input.patch),
    onSettled: () => refreshWorkspaces(queryClient),
  });
};

type RefillChoice = "none" | PoolRefill["interval"];

export function RefillForm({ workspace }: FormProps) {
  const current = workspace.refill;
  const [interval, setRefillInterval] = useState<RefillChoice>(current?.interval ?? "none");
  const [credits, setCredits] = useState(current ? String(current.credits) : "");
  const [mode, setMode] = useState<PoolRefill["mode"]>(current?.mode ?? "top_up_to");
  const [day, setDay] = useState(current?.dayOfMonth === null || current === null ? "" : String(current.dayOfMonth));
  const [errors, setErrors] = useState<{ credits?: string; day?: string }>({});
  const mutation = usePatch(workspace.id);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (interval === "none") {
      setErrors({});
      mutation.mutate({ patch: { refill: null }, note: "The pool has no automatic refill now." });
      return;
    }
    const amount = parseWholeNumber(credits);
    const dayOfMonth = day.trim() === "" ? null : parseWholeNumber(day);
    const found: { credits?: string; day?: string } = {};
    if (amount === null || amount < 1 || amount > MAX_CREDITS) found.credits = `Enter a whole number from 1 to ${formatCount(MAX_CREDITS)}.`;
    if (interval === "monthly" && day.trim() !== "" && (dayOfMonth === null || dayOfMonth < 1 || dayOfMonth > 31)) found.day = "Enter a day from 1 to 31, or leave it empty for the 1st.";
    setErrors(found);
    if (amount === null || found.credits !== undefined || found.day !== undefined) return;
    const refill: PoolRefill = { credits: amount, interval, dayOfMonth: interval === "monthly" ? dayOfMonth : null, mode };
    const how = mode === "top_up_to" ? `topped up to ${formatCount(amount)}` : `increased by ${formatCount(amount)}`;
    mutation.mutate({ patch: { refill }, note: `The pool is ${how} credits ${interval === "daily" ? "each day" : "each month"}.` });
  };

  return (
    <Section title="Automatic refill" testId="pool-refill">
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-3">
        <Select label="Refill" {...bindValue(interval, (value) => setRefillInterval(value as RefillChoice))} data-testid="pool-refill-interval">
          <option value="none">No refill</option>
          <option value="daily">Each day (UTC)</option>
          <option value="monthly">Each month (UTC)</option>
        </Select>
        {interval === "none" ? null : (
          <>
            <Select label="How" {...bindValue(mode, (value) => setMode(value as PoolRefill["mode"]))} data-testid="pool-refill-mode">
              <option value="top_up_to">Top the pool up to</option>
              <option value="increase_by">Add to the pool</option>
            </Select>
            <WholeNumberInput label="Credits" required min={1} max={MAX_CREDITS} {...bindValue(credits, setCredits)} error={errors.credits} data-testid="pool-refill-credits" />
            {interval === "monthly" ? (
              <WholeNumberInput label="Day of the month" min={1} max={31} {...bindValue(day, setDay)} error={errors.day} hint="Empty: the 1st. A shorter month uses its last day." />
            ) : null}
          </>
        )}
        <FormAlert error={mutation.isError ? errorMessage(mutation.error) : undefined} success={mutation.isSuccess ? mutation.variables.note : undefined} />
        <div className="flex justify-end">
          <Button type="submit" variant="secondary" disabled={mutation.isPending} data-testid="pool-refill-submit">
            {mutation.isPending ? "Saving…" : "Save refill"}
          </Button>
        </div>
      </form>
    </Section>
  );
}

export function SharedLimitForm({ workspace }: FormProps) {
  const [qps, setQps] = useState(workspace.qpsLimit === null ? "" : String(workspace.qpsLimit));
  const [error, setError] = useState<string>();
  const mutation = usePatch(workspace.id);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (qps.trim() === "") {
      setError(undefined);
      mutation.mutate({ patch: { qpsLimit: null }, note: "No shared limit: each key keeps its own." });
      return;
    }
    const limit = parseWholeNumber(qps);
    if (limit === null || limit < 1 || limit > MAX_QPS) return setError(`Enter a whole number from 1 to ${formatCount(MAX_QPS)}, or leave it empty for none.`);
    setError(undefined);
    mutation.mutate({ patch: { qpsLimit: limit }, note: `All its keys together make at most ${formatCount(limit)} requests a second.` });
  };

  return (
    <Section title="Shared requests-per-second limit" testId="shared-limit">
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-3">
        <WholeNumberInput
          label="Requests per second, all keys together"
          min={1}
          max={MAX_QPS}
          {...bindValue(qps, setQps)}
          error={error}
          hint="Empty: none; each key keeps its own limit either way."
          data-testid="shared-limit-qps"
        />
        <FormAlert error={mutation.isError ? errorMessage(mutation.error) : undefined} success={mutation.isSuccess ? mutation.variables.note : undefined} />
        <div className="flex justify-end">
          <Button type="submit" variant="secondary" disabled={mutation.isPending} data-testid="shared-limit-submit">
            {mutation.isPending ? "Saving…" : "Save limit"}
          </Button>
        </div>
      </form>
    </Section>
  );
}
