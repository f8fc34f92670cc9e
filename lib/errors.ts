/**
 * The one error type of Social Lookup: a code that says what went wrong and a sentence fit for the
 * user. The code is all a module decides; only the edges turn it into an answer, each from one
 * table — the /v1 edge (lib/api/errors.ts) and the console API (lib/console-api/handler.ts) — and
 * each with its own wording where the contract or the page needs it.
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
  /** The user has no provider key of their own where lookups need one. */
  | "no_provider_key"
  /** The source rate-limits us: retryAfterS says when to try again. */
  | "source_rate_limited"
  /** The setting is fixed by the environment and cannot be changed here. */
  | "set_by_environment"
  // Batches (lib/batches).
  | "unknown_operation"
  | "no_valid_inputs"
  | "too_many_inputs"
  | "cap_below_one_lookup"
  | "no_console_key"
  | "invalid_webhook"
  | "key_cannot_pay"
  /** The paying key is limited to other operations than the batch's. */
  | "operation_not_allowed"
  | "wrong_state"
  | "nothing_to_retry"
  /** Too many open batches or open inputs for one owner (lib/batches/quota.ts). */
  | "quota_exceeded"
  // Accounts (lib/users/manage.ts).
  | "email_taken"
  | "wrong_password"
  | "no_password"
  | "self_disable"
  | "too_many_attempts"
  // Workspaces (lib/workspaces).
  /** A workspace keeps at least one owner: the change would leave none. */
  | "last_owner"
  /** A rule of workspaces: a personal workspace takes no members, a member is already one, … */
  | "workspace_rule"
  /** An invitation link that is unknown, used, revoked or expired. */
  | "invitation_invalid"
  // Requests as they arrive, before any domain reads them.
  | "unauthenticated"
  | "cross_origin"
  | "body_too_large"
  /** Not valid UTF-8, or text PostgreSQL cannot hold (NUL, lone surrogates). */
  | "invalid_text"
  | "invalid_json"
  | "empty_upload"
  | "upload_too_large"
  | "not_utf8";

/** What some failures carry beyond their sentence. */
export type DomainErrorDetails = {
  /** source_rate_limited: seconds until the source takes requests again. */
  retryAfterS?: number;
};

export class DomainError extends Error {
  readonly retryAfterS: number | undefined;

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    details: DomainErrorDetails = {},
  ) {
    super(message);
    this.name = "DomainError";
    this.retryAfterS = details.retryAfterS;
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;
