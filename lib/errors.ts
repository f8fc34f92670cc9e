/**
 * Errors of the domain modules (lib/usage, lib/alerts, lib/connectors, lib/keys): a code that
 * says what went wrong and a sentence fit for the user. Domain code knows no HTTP; only the
 * edges — the /v1 pipeline (lib/api) and the console API wrapper (lib/console-api/handler.ts) —
 * turn a code into a status.
 */
export type DomainErrorCode =
  /** The thing does not exist, or the caller may not know it does. */
  | "not_found"
  | "forbidden"
  | "invalid_request"
  /** A lookup's query parameter is absent or empty (the contract's 400 "Missing required parameter: <name>"). */
  | "missing_parameter"
  /** A lookup's query parameter is given twice, too long or malformed (the contract's 400 "Invalid parameter: <name>"). */
  | "invalid_parameter"
  | "invalid_cursor"
  /** A rule of keys: a revoked key cannot be the console key, an allowance is exceeded, … */
  | "key_rule"
  /** The provider refused a provider key (bad, or its quota is used up). */
  | "provider_key_rejected"
  | "provider_key_exhausted"
  /** The provider could not tell whether a key is good (down, rate-limiting, answering nonsense). */
  | "provider_key_unreachable"
  | "provider_key_rate_limited"
  | "provider_key_bad_answer"
  | "upstream_not_configured"
  /** The setting is fixed by the environment and cannot be changed here. */
  | "set_by_environment";

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;
