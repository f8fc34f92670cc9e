import { isDomainError, type DomainError, type DomainErrorCode } from "@/lib/errors";
import type { AccessRefusal } from "@/lib/keys/access";
import type { AuthFailure } from "@/lib/keys/authenticate";

/** Errors of the /v1 contract are values with a code; messages are the contract's, word for word. */
export type ApiErrorCode = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 429 | 500;

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const messages = {
  keyMissing: "apiKey is null",
  keyInvalid: "apiKey is invalid",
  operationNotAllowed: "apiKey is not allowed to call this operation",
  addressNotAllowed: "apiKey is not allowed from this address",
  quota: "apiKey quota is not enough",
  qps: "qps limit exceeded",
  internal: "Internal server error",
  notFoundPath: "Not found",
  methodNotAllowed: "Method not allowed",
} as const;

/** The /v1 sentence of each authentication failure (lib/keys returns the code). */
export const authMessages = {
  key_missing: messages.keyMissing,
  key_invalid: messages.keyInvalid,
} as const satisfies Record<AuthFailure, string>;

/** The /v1 sentence of each 403 (lib/keys/access.ts returns the code). */
export const accessMessages = {
  operation_not_allowed: messages.operationNotAllowed,
  address_not_allowed: messages.addressNotAllowed,
} as const satisfies Record<AccessRefusal, string>;

type V1Answer = { status: ApiErrorCode; message: (error: DomainError) => string };

const ownSentence = (error: DomainError): string => error.message;
/** A batch request's field at fault, in the contract's parameter wording. */
const badField = (field: string) => (error: DomainError): string => `Invalid parameter: ${field} (${error.message})`;

/**
 * The /v1 answer to each domain failure that reaches /v1 — the lookup pipeline's and the batches' —
 * the one place this mapping lives. A code that is not here is not the caller's: a 500.
 */
const v1Answers: Partial<Record<DomainErrorCode, V1Answer>> = {
  missing_parameter: { status: 400, message: ownSentence },
  invalid_parameter: { status: 400, message: ownSentence },
  unknown_operation: { status: 400, message: badField("operation") },
  no_valid_inputs: { status: 400, message: badField("inputs") },
  too_many_inputs: { status: 400, message: badField("inputs") },
  cap_below_one_lookup: { status: 400, message: badField("maxCredits") },
  invalid_webhook: { status: 400, message: badField("webhookUrl") },
  key_cannot_pay: { status: 402, message: () => messages.quota },
  operation_not_allowed: { status: 403, message: () => messages.operationNotAllowed },
  // A lookup's missing record is its operation's 404 sentence, an answer rather than an error: what fails as not_found here is a batch.
  not_found: { status: 404, message: () => "Batch not found" },
  wrong_state: { status: 409, message: ownSentence },
  body_too_large: { status: 413, message: ownSentence },
  // The quota's own sentence: how much is open, and that finishing or cancelling one makes room.
  quota_exceeded: { status: 429, message: ownSentence },
  source_rate_limited: { status: 429, message: () => messages.qps },
};

export type V1Failure = { status: ApiErrorCode; message: string; retryAfterS: number | undefined };

/** A domain failure as /v1 answers it, or null when it is not one /v1 answers (a 500 for the caller). */
export const v1FailureOf = (error: unknown): V1Failure | null => {
  if (!isDomainError(error)) return null;
  const answer = v1Answers[error.code];
  return answer ? { status: answer.status, message: answer.message(error), retryAfterS: error.retryAfterS } : null;
};
