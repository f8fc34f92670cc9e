import type { CursorCodec } from "@/lib/connectors/cursor";
import type { DataConnector } from "@/lib/connectors/select";
import type { BatchOperation } from "./operations";

/**
 * What the batch runner needs from the process, handed to it by whoever starts it (lib/jobs.ts):
 * a way to look one page up as /v1 answers it — the paying key's checks, charge and usage record
 * are the API's (docs/architecture.md "Batches") — and the data source, to re-read a record a
 * restart left charged but unrecorded. Batches know no HTTP: the edge that owns the /v1 pipeline
 * turns its answer into a BatchPageAnswer.
 */
export type BatchPage = {
  /** The paying key's token (lib/batches/payer.ts). */
  token: string;
  query: URLSearchParams;
  /** The batch's freshness bound: the oldest cached answer it accepts, in seconds. */
  maxAgeS: number | undefined;
};

export type BatchPageAnswer = {
  status: number;
  creditsCharged: number;
  requestId: string | null;
  /** The answer's message when it is not a 200. */
  message: string | null;
  /** A 200's record. */
  data: unknown;
};

export type BatchLookup = (operation: BatchOperation, page: BatchPage) => Promise<BatchPageAnswer>;

export type BatchServices = {
  lookup: BatchLookup;
  connector: DataConnector;
  cursors: CursorCodec;
  eventSiteHosts: readonly string[];
};
