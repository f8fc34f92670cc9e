/** What went wrong with a batch request; each edge (console API, /v1, MCP) picks status and sentence. */
export type BatchErrorCode =
  | "unknown_operation"
  | "no_valid_inputs"
  | "too_many_inputs"
  | "cap_below_one_lookup"
  | "no_console_key"
  | "invalid_webhook"
  | "key_cannot_pay"
  /** The paying key is limited to other operations than the batch's. */
  | "operation_not_allowed"
  | "not_found"
  | "wrong_state"
  | "nothing_to_retry"
  /** Too many open batches or open inputs for one owner (lib/batches/quota.ts). */
  | "quota_exceeded";

export class BatchError extends Error {
  constructor(
    readonly code: BatchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "BatchError";
  }
}
