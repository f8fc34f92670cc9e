"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useMemo, useState, type ChangeEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fileInputClass, Input } from "@/components/ui/input";
import { checkInputs, maxCostCredits, pagesPerInput, type BatchOperationView } from "@/lib/batches/inputs";
import { columnValues, likelyColumn, readInputFile, type InputTable } from "@/lib/batches/input-file";
import { batchListQuery, createBatch, refreshBatches } from "@/lib/query/batches";
import { byUrlInstead } from "@/lib/query/events";
import { ConsoleApiError } from "@/lib/query/fetch-json";
import { meterQuery } from "@/lib/query/meter";
import { formatNumber } from "./format";
import { bindValue } from "@/components/ui/bind-value";

export type BatchLimits = { eventSiteHosts: string[]; maxInputs: number; maxPages: number };

type Props = { operations: BatchOperationView[]; limits: BatchLimits; onCreated: (id: string) => void };

const PREVIEW_ROWS = 8;


/**
 * A new batch: the operation, the list (pasted, or a TXT/CSV file with a column to pick), the
 * pages, a preview of what will run and what is refused, the exact maximum cost and a cap.
 * The preview runs the same check (lib/batches/inputs.ts) the server runs on creation.
 */
export function NewBatchForm({ operations, limits, onCreated }: Props) {
  const client = useQueryClient();
  const ids = { operation: useId(), text: useId(), file: useId(), column: useId() };
  // Null until the user picks one: then the operation of their newest batch, so the form keeps the
  // operation last started across a start, a reload or a visit to another page.
  const [chosenOperationId, setOperationId] = useState<string | null>(null);
  const newestOperationId = useQuery({ ...batchListQuery(), select: (batches) => batches[0]?.operation ?? null }).data;
  const operationId = chosenOperationId ?? newestOperationId ?? operations[0]?.id ?? "";
  const [text, setText] = useState("");
  const [file, setFile] = useState<{ name: string; table: InputTable } | null>(null);
  const [column, setColumn] = useState(0);
  const [pages, setPages] = useState<"first" | "all">("first");
  const defaultMaxPages = String(Math.min(10, limits.maxPages));
  const [maxPages, setMaxPages] = useState(defaultMaxPages);
  const [cap, setCap] = useState<string | null>(null);
  // A new key remounts the file input: after a start it no longer names the file sent.
  const [fileInputKey, setFileInputKey] = useState(0);
  const meter = useQuery(meterQuery());

  const operation = operations.find((candidate) => candidate.id === operationId) ?? operations[0];
  const lines = useMemo(() => {
    if (file === null) return text.split(/\r?\n/);
    return file.table.kind === "lines" ? file.table.lines : columnValues(file.table, column);
  }, [file, text, column]);
  const check = useMemo(
    () => (operation ? checkInputs(operation, lines, { eventSiteHosts: limits.eventSiteHosts, maxInputs: limits.maxInputs }) : null),
    [operation, lines, limits],
  );
  const pageCount = operation ? pagesPerInput(operation, { pages, maxPages: Number(maxPages) || 1 }, limits.maxPages) : 1;
  const maxCost = operation && check ? maxCostCredits(operation, check.accepted.length, pageCount) : 0;
  const capCredits = cap === null ? maxCost : Math.min(Number(cap), maxCost);
  const capError =
    cap !== null && (!/^\d+$/.test(cap) || Number(cap) < (operation?.costCredits ?? 1))
      ? `The cap must be a whole number of at least ${operation?.costCredits ?? 1} credits (one lookup).`
      : undefined;
  const consoleKey = meter.data?.key ?? null;
  // Event page URLs pasted under "by id": keep the choice, and offer the operation that takes them.
  const rejectedUrls = check?.rejected.map((entry) => entry.input) ?? [];
  const switchTo = byUrlInstead(operation?.id ?? "", rejectedUrls, limits.eventSiteHosts);
  const switchLabel = operations.find((candidate) => candidate.id === switchTo)?.label;

  const start = useMutation({
    mutationFn: () => {
      if (!operation || !check) throw new Error("Choose an operation.");
      return createBatch({
        operation: operation.id,
        inputs: check.accepted.map((entry) => entry.input),
        options: { pages, maxPages: pageCount },
        maxCredits: capCredits,
      });
    },
    onSuccess: async (created) => {
      // Back to the empty form: the batch started lives on in the list and its detail.
      setText("");
      setFile(null);
      setColumn(0);
      setPages("first");
      setMaxPages(defaultMaxPages);
      setCap(null);
      setFileInputKey((current) => current + 1);
      await refreshBatches(client);
      onCreated(created.id);
    },
  });

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    if (!chosen) return;
    const table = readInputFile(chosen.name, await chosen.text());
    setFile({ name: chosen.name, table });
    if (table.kind === "csv" && operation) {
      setColumn(likelyColumn(table, (value) => checkInputs(operation, [value], { ...limits }).accepted.length === 1));
    }
  };

  if (!operation || !check) return <p className="text-sm text-muted">No operation offers batches.</p>;
  const empty = file === null && text.trim() === "";
  const overLimit = check.overLimit > 0;
  const canStart = check.accepted.length > 0 && check.overLimit === 0 && capError === undefined && consoleKey !== null && !start.isPending;

  return (
    <Card>
      <CardHeader>
        <CardTitle>New batch</CardTitle>
        <CardDescription>
          One input per line, or a TXT/CSV file. It runs on the server with your console key: closing this tab changes nothing.
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-5">
        <div className="flex flex-col gap-1.5">
          <label htmlFor={ids.operation} className="text-sm font-medium">
            Operation
          </label>
          <select
            id={ids.operation}
            {...bindValue(operation.id, setOperationId)}
            className="h-10 rounded-lg border border-border-strong bg-surface px-3 text-sm shadow-sm"
          >
            {operations.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.label} ({candidate.site}) · {candidate.costCredits} credit{candidate.costCredits === 1 ? "" : "s"}
              </option>
            ))}
          </select>
        </div>

        <div className="grid gap-4 md:grid-cols-2">
          <div className="flex flex-col gap-1.5">
            <label htmlFor={ids.text} className="text-sm font-medium">
              Paste {operation.inputNoun}
            </label>
            <textarea
              id={ids.text}
              value={text}
              disabled={file !== null}
              onChange={(event) => setText(event.target.value)}
              rows={7}
              placeholder="One per line"
              className="rounded-lg border border-border-strong bg-surface p-3 font-mono text-xs shadow-sm disabled:opacity-60"
            />
          </div>
          <div className="flex flex-col gap-3">
            <div className="flex flex-col gap-1.5">
              <label htmlFor={ids.file} className="text-sm font-medium">
                Or upload a CSV/TXT file
              </label>
              <input
                key={fileInputKey}
                id={ids.file}
                type="file"
                accept=".csv,.txt,text/csv,text/plain"
                onChange={(event) => void onFile(event)}
                className={fileInputClass}
              />
            </div>
            {file ? (
              <div className="flex flex-col gap-2 text-sm">
                <p>
                  <span className="font-medium">{file.name}</span>{" "}
                  <button
                    type="button"
                    className="text-accent underline"
                    onClick={() => {
                      setFile(null);
                      setFileInputKey((current) => current + 1);
                    }}
                  >
                    remove
                  </button>
                </p>
                {file.table.kind === "csv" ? (
                  <div className="flex flex-col gap-1.5">
                    <label htmlFor={ids.column} className="font-medium">
                      Column with the inputs
                    </label>
                    <select
                      id={ids.column}
                      value={column}
                      onChange={(event) => setColumn(Number(event.target.value))}
                      className="h-10 rounded-lg border border-border-strong bg-surface px-3 text-sm shadow-sm"
                    >
                      {file.table.header.map((name, index) => (
                        <option key={`${name}-${index}`} value={index}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </div>
                ) : null}
              </div>
            ) : null}
          </div>
        </div>

        {operation.paged ? (
          <fieldset className="flex flex-col gap-2 text-sm">
            <legend className="mb-1 font-medium">Pages per input</legend>
            <label className="flex items-center gap-2">
              <input type="radio" name="pages" checked={pages === "first"} onChange={() => setPages("first")} /> First page
            </label>
            <label className="flex flex-wrap items-center gap-2">
              <input type="radio" name="pages" checked={pages === "all"} onChange={() => setPages("all")} /> All pages, up to
              <input
                aria-label="Most pages per input"
                type="number"
                min={1}
                max={limits.maxPages}
                {...bindValue(maxPages, setMaxPages)}
                className="h-8 w-20 rounded-lg border border-border-strong bg-surface px-2"
              />
              pages per input (at most {limits.maxPages})
            </label>
          </fieldset>
        ) : null}

        {empty ? (
          <p className="rounded-lg border border-dashed border-border-strong p-4 text-sm text-muted" data-testid="batch-preview-empty">
            Paste {operation.inputNoun} or upload a file: what will run, what is refused and the cost show here before you start.
          </p>
        ) : (
          <section aria-label="Preview" className="flex flex-col gap-3 rounded-lg border border-border p-4 text-sm" data-testid="batch-preview">
            <p>
              <strong data-testid="accepted-count" className={overLimit ? "text-danger" : undefined}>
                {formatNumber(check.accepted.length)}
              </strong>{" "}
              {overLimit ? (
                <span className="font-medium text-danger" data-testid="over-limit">
                  inputs: over the limit of {formatNumber(limits.maxInputs)} by {formatNumber(check.overLimit)}
                </span>
              ) : (
                "inputs accepted"
              )}{" "}
              ·{" "}
              <strong data-testid="rejected-count">{formatNumber(check.rejected.length)}</strong> rejected ·{" "}
              <strong data-testid="duplicate-count">{formatNumber(check.duplicates.length)}</strong> duplicates removed
            </p>
            {overLimit ? (
              <p role="alert" className="text-danger">
                A batch takes at most {formatNumber(limits.maxInputs)} inputs: remove {formatNumber(check.overLimit)} or split the list.
              </p>
            ) : null}
            {check.accepted.length > 0 ? (
              <details>
                <summary className="cursor-pointer">Inputs it will look up</summary>
                <ul className="mt-2 font-mono text-xs">
                  {check.accepted.slice(0, PREVIEW_ROWS).map((entry) => (
                    <li key={entry.input}>{entry.input}</li>
                  ))}
                  {check.accepted.length > PREVIEW_ROWS ? <li>… and {formatNumber(check.accepted.length - PREVIEW_ROWS)} more</li> : null}
                </ul>
              </details>
            ) : null}
            {switchTo !== null ? (
              <p className="flex flex-wrap items-center gap-2 rounded-lg bg-warning-soft px-3 py-2" data-testid="switch-operation">
                <span>
                  {rejectedUrls.length === 1
                    ? "This looks like an event page URL — look it up by URL instead?"
                    : "These look like event page URLs — look them up by URL instead?"}
                </span>
                <Button variant="secondary" size="sm" onClick={() => setOperationId(switchTo)}>
                  Switch to {switchLabel ?? "by URL"}
                </Button>
              </p>
            ) : null}
            {check.rejected.length > 0 ? (
              <div>
                <p className="font-medium">Rejected</p>
                <ul className="mt-1 text-xs" data-testid="rejected-list">
                  {check.rejected.slice(0, PREVIEW_ROWS).map((entry, index) => (
                    <li key={`${entry.input}-${index}`}>
                      <span className="font-mono">{entry.input}</span> — {entry.reason}
                    </li>
                  ))}
                  {check.rejected.length > PREVIEW_ROWS ? <li>… and {formatNumber(check.rejected.length - PREVIEW_ROWS)} more</li> : null}
                </ul>
              </div>
            ) : null}
            <p data-testid="batch-cost">
              Maximum cost: <strong>{formatNumber(maxCost)} credits</strong> ({formatNumber(check.accepted.length)} × {pageCount} page
              {pageCount === 1 ? "" : "s"} × {operation.costCredits}). Failed and not-found lookups are free.
            </p>
            <Input
              label="Credit cap"
              inputMode="numeric"
              {...bindValue(cap ?? String(maxCost), setCap)}
              hint="The batch stops before a lookup would take it past this many credits. Lower it to spend less."
              error={capError}
              className="max-w-xs"
            />
            {consoleKey === null && !meter.isPending ? (
              <p role="alert" className="text-danger">
                Starting a batch needs a console key. <Link href="/keys" className="underline">Choose one on the Keys page.</Link>
              </p>
            ) : consoleKey && consoleKey.creditsRemaining < capCredits ? (
              <p className="text-warning">
                Your console key has {formatNumber(consoleKey.creditsRemaining)} credits: the batch will stop when they run out, and can
                be resumed after a top-up.
              </p>
            ) : null}
          </section>
        )}

        {start.error ? (
          <p role="alert" className="text-sm text-danger">
            {start.error instanceof ConsoleApiError ? start.error.message : "The batch could not be started. Try again."}
          </p>
        ) : null}
        <div>
          <Button onClick={() => start.mutate()} disabled={!canStart}>
            {start.isPending ? "Starting…" : empty ? "Start batch" : `Start batch of ${formatNumber(check.accepted.length)}`}
          </Button>
        </div>
      </CardContent>
    </Card>
  );
}
