import type { CreditReceipt } from "./types.js";

/**
 * Every failure the SDK throws is a SocialLookupError. An answer of the API (4xx, 5xx) is an
 * ApiError carrying the envelope's `code`, `message` and `requestId` and the credit receipt, one
 * class per status a script handles differently; no answer at all is a NetworkError (or its
 * RequestTimeoutError). An aborted call rejects with the signal's reason, as fetch does.
 */
export class SocialLookupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export type ApiErrorDetails = {
  status: number;
  /** The envelope's code (the HTTP status); the status when the body was not an envelope. */
  code: number;
  message: string;
  requestId: string | null;
  credits: CreditReceipt | null;
};

export class ApiError extends SocialLookupError {
  readonly status: number;
  readonly code: number;
  readonly requestId: string | null;
  readonly credits: CreditReceipt | null;

  constructor(details: ApiErrorDetails) {
    super(details.message);
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.credits = details.credits;
  }
}

/** 400: a parameter is missing or malformed ("Missing required parameter: userid"). Never retried. */
export class BadRequestError extends ApiError {}
/** 401: no key, or an unknown, expired or revoked one. Never retried. */
export class AuthenticationError extends ApiError {}
/** 402: the key's credits are below the price, or its daily budget is reached ("apiKey quota is not enough"). Never retried. */
export class QuotaExceededError extends ApiError {}
/** 403: the key may not call this operation, or not from this address. Never retried. */
export class PermissionDeniedError extends ApiError {}
/** 404: no such record (or batch). Never retried. */
export class NotFoundError extends ApiError {}
/** 409: a batch's status does not allow the action. */
export class ConflictError extends ApiError {}
/** 413: the request body is too large. */
export class PayloadTooLargeError extends ApiError {}

/**
 * 429. With `retryAfterS` (the per-second limit) the client waited and retried until its
 * maxRateLimitWaits ran out; without it (the open-batch quota), it is the answer itself.
 */
export class RateLimitedError extends ApiError {
  readonly retryAfterS: number | null;

  constructor(details: ApiErrorDetails & { retryAfterS: number | null }) {
    super(details);
    this.retryAfterS = details.retryAfterS;
  }
}

/** 5xx: the server failed (details in its log under requestId); retried with backoff first. */
export class ServerError extends ApiError {}

/** No answer: the connection failed or was reset. Retried with backoff first (GET calls). */
export class NetworkError extends SocialLookupError {}

/** No answer within the attempt's timeoutMs. */
export class RequestTimeoutError extends NetworkError {}

/**
 * The server answered with a redirect to another origin (scheme, host or port): the SDK sends the
 * key (and a batch's inputs) to the baseUrl's origin only, so it stops there instead of following.
 * Set baseUrl to where the server really is. Redirects within the origin are followed. Never retried.
 */
export class RedirectRefusedError extends SocialLookupError {
  /** The redirect's status (301, 302, 303, 307, 308). */
  readonly status: number;
  /** The origin the redirect pointed to. */
  readonly location: string;

  constructor(status: number, from: string, location: string) {
    super(`the server at ${from} answered ${status} with a redirect to another origin, ${location}: not followed, so the API key never leaves ${from}; set baseUrl to the address the server is really at`);
    this.status = status;
    this.location = location;
  }
}

const classByStatus: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: QuotaExceededError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
};

/** The error class of an answer's status. */
export const apiErrorOf = (details: ApiErrorDetails, retryAfterS: number | null): ApiError => {
  if (details.status === 429) return new RateLimitedError({ ...details, retryAfterS });
  if (details.status >= 500) return new ServerError(details);
  const ErrorClass = classByStatus[details.status] ?? ApiError;
  return new ErrorClass(details);
};
