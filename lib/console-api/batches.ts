import { BatchError, type BatchErrorCode } from "@/lib/batches/errors";
import { ConsoleError } from "./handler";

/** Batch errors as the console API answers them: the domain's code, the status it deserves. */
const STATUS: Record<BatchErrorCode, ConsoleError["status"]> = {
  unknown_operation: 400,
  no_valid_inputs: 400,
  too_many_inputs: 400,
  cap_below_one_lookup: 400,
  no_console_key: 409,
  invalid_webhook: 400,
  key_cannot_pay: 402,
  operation_not_allowed: 403,
  not_found: 404,
  wrong_state: 409,
  nothing_to_retry: 409,
  quota_exceeded: 429,
};

export const withBatchErrors = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BatchError) throw new ConsoleError(STATUS[error.code], error.code, error.message);
    throw error;
  }
};
