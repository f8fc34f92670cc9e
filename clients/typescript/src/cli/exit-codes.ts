import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  QuotaExceededError,
  RateLimitedError,
} from "../errors.js";

/**
 * The command line's exit codes, in the style of the product's operator CLIs (a script branches
 * on them: `social-lookup … || [ $? -eq 5 ]`). Documented in clients/typescript/README.md.
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Failed: no answer (network, timeout), a server error after the retries, a redirect to another origin, anything unexpected. */
  failed: 1,
  /** Usage: an unknown option, a missing or bad argument (the API's 400 too), a file that cannot be read or created; nothing was spent. */
  usage: 2,
  /** The key was refused: 401 (none, unknown, expired, revoked) or 403 (operation or address not allowed). */
  keyRefused: 3,
  /** Out of credits: 402 (the balance or the daily budget); what was fetched before is written. */
  noCredits: 4,
  /** Not found: 404 (no such record, or batch). */
  notFound: 5,
  /** A batch ended without finishing: stopped (its credit cap, the key's credits, the key) or canceled; its results so far are written. */
  batchUnfinished: 6,
  /** Rate limited: 429 still after the waits, or the open-batch quota. */
  rateLimited: 7,
  /** Interrupted (Ctrl-C): a running batch was canceled on the server. */
  interrupted: 130,
} as const;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const exitCodeOf = (error: unknown): number => {
  if (error instanceof UsageError || error instanceof BadRequestError) return EXIT.usage;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return EXIT.keyRefused;
  if (error instanceof QuotaExceededError) return EXIT.noCredits;
  if (error instanceof NotFoundError) return EXIT.notFound;
  if (error instanceof RateLimitedError) return EXIT.rateLimited;
  return EXIT.failed;
};
