"use client";

import { useState } from "react";
import type { BatchOperationView } from "@/lib/batches/inputs";
import { BatchDetail } from "./batch-detail";
import { BatchList } from "./batch-list";
import { NewBatchForm, type BatchLimits } from "./new-batch-form";

type Props = { operations: BatchOperationView[]; limits: BatchLimits };

/** The Batches page: a new batch, the one being watched, and the list of the analyst's batches. */
export function BatchesConsole({ operations, limits }: Props) {
  const [selected, setSelected] = useState<string | null>(null);
  const operationLabel = (id: string) => operations.find((operation) => operation.id === id)?.label ?? id;
  return (
    <div className="flex flex-col gap-6">
      <NewBatchForm operations={operations} limits={limits} onCreated={setSelected} />
      {selected ? <BatchDetail key={selected} id={selected} operationLabel={operationLabel} onCreated={setSelected} /> : null}
      <BatchList selected={selected} onSelect={setSelected} operationLabel={operationLabel} />
    </div>
  );
}
