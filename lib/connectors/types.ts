import { DomainError } from "@/lib/errors";
import type { Source } from "./source";

/**
 * A connector answers the lookups from some source (the record store, or an upstream provider
 * behind its cache). It returns the `data` payload already serialised as JSON, so that records
 * stored as JSON text travel to the client without being parsed and re-serialised.
 */
export type LookupResult =
  | {
      found: true;
      dataJson: string;
      asOf: Date | null;
      /** "hit"/"miss" when the answer came through a cache of an upstream provider. */
      cache?: "hit" | "miss";
      /** Credits to charge instead of the operation's cost (e.g. 0 for free cache hits). */
      costCredits?: number;
    }
  | { found: false };

/**
 * What a lookup may ask of the pipeline. A connector that is about to spend money (a call to an
 * upstream provider) calls reserve() first: it charges the cost now (false: the key cannot pay,
 * and the pipeline answers 402/401 without the call); the pipeline then commits the charge on
 * success or refunds it on failure, in the same request.
 */
export type LookupContext = {
  keyOwnerId: string | null;
  reserve(): Promise<boolean>;
  /**
   * The oldest cached upstream answer the client accepts, in seconds (Cache-Control: max-age=N;
   * 0 for no-cache). Undefined: the operator's TTLs.
   */
  maxAgeS?: number;
};

/** Thrown by a connector when its source rate-limits us: the source_rate_limited failure (a 429 at /v1). */
export const sourceRateLimited = (retryAfterS: number): DomainError =>
  new DomainError("source_rate_limited", `source rate limited, retry after ${retryAfterS} s`, { retryAfterS });

/** One entry for every operation: the operation's declared source (./source.ts) and its parameters. */
export interface Connector {
  readonly name: string;
  lookup<Params, Data>(source: Source<Params, Data>, params: Params, context: LookupContext): Promise<LookupResult>;
}
