/**
 * @social-lookup/client: the TypeScript SDK of the Social Lookup /v1 API. Its operations, their
 * parameters and record types are generated from the server's operation registry
 * (./generated/operations.ts), so they cannot drift from what the server serves.
 */
export { SocialLookup, type ClientOptions } from "./client.js";
export { BatchHandle, Batches, BatchWaitTimeoutError, FINISHED_STATUSES, isFinished, type BatchCreateRequest, type BatchRecord, type WaitOptions } from "./batches.js";
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  QuotaExceededError,
  RateLimitedError,
  RedirectRefusedError,
  RequestTimeoutError,
  ServerError,
  SocialLookupError,
} from "./errors.js";
export * from "./generated/operations.js";
export type { OperationSpec, PagingSpec, ParamSpec } from "./spec.js";
export type { Answer, CallOptions, CreditReceipt, IterateOptions, PagedOperation, PageWalk, RetryEvent } from "./types.js";
export {
  DEFAULT_TOLERANCE_S,
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  isValidSignature,
  verifyWebhook,
  WebhookSignatureError,
  type BatchFinishedEvent,
  type CreditsAlertEvent,
  type VerifiedWebhook,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookRefusal,
} from "./webhooks.js";
