import { keepPreviousData, queryOptions, type QueryClient } from "@tanstack/react-query";
import type { BatchItemView, BatchView } from "@/lib/batches/view";
import type { BatchPagesOption, RejectedInput } from "@/lib/batches/inputs";
import { fetchJson, jsonRequest } from "./fetch-json";

/**
 * Browser access to the batches console API (/api/batches): query option factories and the
 * mutations. A running batch is polled (every second) until it ends; the server does the work.
 */
export type { BatchItemView, BatchView };

export type NewBatchInput = {
  operation: string;
  inputs: string[];
  options: BatchPagesOption;
  maxCredits: number;
};

export type CreatedBatch = {
  id: string;
  status: BatchView["status"];
  total: number;
  rejected: RejectedInput[];
  maxCostCredits: number;
  duplicates: number;
  maxCredits: number;
};

export type ItemsPage = { items: BatchItemView[]; next: { afterPosition: number; afterPage: number } | null };

const POLL_MS = 1000;
export const batchesQueryKey = ["batches"] as const;

const isActive = (batch: Pick<BatchView, "status"> | undefined) => batch?.status === "running" || batch?.status === "queued";

export const batchListQuery = () =>
  queryOptions({
    queryKey: [...batchesQueryKey, "list"],
    queryFn: ({ signal }) => fetchJson<{ batches: BatchView[] }>("/api/batches", { signal }).then((answer) => answer.batches),
    refetchInterval: (query) => (query.state.data?.some(isActive) ? POLL_MS : false),
    staleTime: 0,
  });

/**
 * One batch as the list holds it, or null when the list does not (it keeps the newest ones). The
 * batch's card reads this entry, so the card and its row in the list show the same state at the
 * same moment: one poll, one source.
 */
export const batchInListQuery = (id: string) =>
  queryOptions({
    ...batchListQuery(),
    select: (batches: BatchView[]) => batches.find((batch) => batch.id === id) ?? null,
  });

const batchPath = (id: string) => `/api/batches/${encodeURIComponent(id)}`;

/** One batch by id, with its completion webhook: for what the list does not carry. */
export const batchQuery = (id: string) =>
  queryOptions({
    queryKey: [...batchesQueryKey, "one", id],
    queryFn: ({ signal }) => fetchJson<BatchView>(batchPath(id), { signal }),
    refetchInterval: (query) => (query.state.data === undefined || isActive(query.state.data) ? POLL_MS : false),
    staleTime: 0,
  });

export const RESULTS_PAGE_SIZE = 100;

/**
 * The first results of a batch (the table). Its key holds the batch's progress (done count and
 * status), so every step the batch takes, its last one included, reads the rows again: the table
 * never says "pending" beside a batch that is done. The previous rows stay shown meanwhile.
 */
export const batchItemsQuery = (id: string, progress: Pick<BatchView, "done" | "status" | "creditsSpent"> | undefined) =>
  queryOptions({
    queryKey: [...batchesQueryKey, "items", id, progress?.status ?? "", progress?.done ?? -1, progress?.creditsSpent ?? -1],
    queryFn: ({ signal }) => fetchJson<ItemsPage>(`${batchPath(id)}/items?limit=${RESULTS_PAGE_SIZE}`, { signal }),
    enabled: progress !== undefined,
    placeholderData: keepPreviousData,
    refetchInterval: isActive(progress) ? POLL_MS * 2 : false,
    staleTime: 0,
  });

export const createBatch = (input: NewBatchInput): Promise<CreatedBatch> =>
  fetchJson<CreatedBatch>("/api/batches", jsonRequest("POST", input));

export type BatchAction = "pause" | "resume" | "cancel";

export const changeBatch = (id: string, action: BatchAction, maxCredits?: number): Promise<BatchView> =>
  fetchJson<BatchView>(`${batchPath(id)}/${action}`, jsonRequest("POST", maxCredits === undefined ? {} : { maxCredits }));

export const retryBatch = (id: string): Promise<CreatedBatch> => fetchJson<CreatedBatch>(`${batchPath(id)}/retry`, jsonRequest("POST", {}));

/** The console's download links: its CSV carries a byte-order mark, so Excel reads it as UTF-8. */
export const resultsUrl = (id: string, format: "csv" | "ndjson") => `${batchPath(id)}/results?format=${format}${format === "csv" ? "&bom=1" : ""}`;

export const refreshBatches = (client: QueryClient) => client.invalidateQueries({ queryKey: batchesQueryKey });
