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
