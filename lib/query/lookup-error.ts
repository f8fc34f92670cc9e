/**
 * A failed console lookup as a value: what went wrong (a code the UI can act on), the 400's
 * field, and what it cost — read from the /v1 envelope or the console API's own error.
 */
export type LookupErrorCode =
  | "bad_request"
  | "signed_out"
  | "key_rejected"
  | "out_of_credits"
  | "not_found"
  | "forbidden"
  | "rate_limited"
  | "server_error"
  | "no_console_key"
  | "no_provider_key"
  | "network_error";

export type LookupErrorInit = {
  /** The operation id, e.g. "followers". */
  operation: string;
  /** HTTP status; 0 when the server could not be reached. */
  status: number;
  code: LookupErrorCode;
  message: string;
  requestId?: string;
  /** 429: seconds to wait before the next try. */
  retryAfterS?: number;
  /** 400: the query parameter at fault, e.g. "url". */
  field?: string;
  fieldProblem?: "missing" | "invalid";
  /** What the failed lookup cost: 0 for every failure the server answered (docs/api.md "Order of checks"). */
  creditsCharged: number;
  creditsRemaining?: number;
  /** 402 in the console: the spending limit that ran out (/v1/account's `limited_by`); `message` is the console's sentence for it. */
  limitedBy?: SpendingLimit;
};

/** The limits a console key spends within (/v1/account's `limited_by`). */
export type SpendingLimit = "credits" | "pool" | "daily_cap" | "cap" | "budget";

export const SPENDING_LIMITS: readonly SpendingLimit[] = ["credits", "pool", "daily_cap", "cap", "budget"];

export class LookupError extends Error {
  readonly operation: string;
  readonly status: number;
  readonly code: LookupErrorCode;
  readonly requestId: string | undefined;
  readonly retryAfterS: number | undefined;
  readonly field: string | undefined;
  readonly fieldProblem: "missing" | "invalid" | undefined;
  readonly creditsCharged: number;
  readonly creditsRemaining: number | undefined;
  readonly limitedBy: SpendingLimit | undefined;

  constructor(init: LookupErrorInit) {
    super(init.message);
    this.name = "LookupError";
    this.operation = init.operation;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfterS = init.retryAfterS;
    this.field = init.field;
    this.fieldProblem = init.fieldProblem;
    this.creditsCharged = init.creditsCharged;
    this.creditsRemaining = init.creditsRemaining;
    this.limitedBy = init.limitedBy;
  }
}

export const isLookupError = (error: unknown): error is LookupError => error instanceof LookupError;

const PARAM_PROBLEM = /^(Missing required parameter|Invalid parameter): ([A-Za-z_]+)$/;

/** "Missing required parameter: url" → { field: "url", problem: "missing" }. */
export const parseParamProblem = (message: string): { field: string; problem: "missing" | "invalid" } | null => {
  const match = PARAM_PROBLEM.exec(message.trim());
  if (!match?.[2]) return null;
  return { field: match[2], problem: match[1] === "Invalid parameter" ? "invalid" : "missing" };
};

/** The code of a /v1 envelope's status. */
export const codeForStatus = (status: number): LookupErrorCode => {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "key_rejected";
    case 402:
      return "out_of_credits";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 429:
      return "rate_limited";
    default:
      return "server_error";
  }
};

/** The code of the console API's own refusal (`{error: {code, message}}`). */
export const codeForConsoleRefusal = (status: number, consoleCode: string): LookupErrorCode => {
  if (status === 401) return "signed_out";
  if (status === 409) return consoleCode === "no_provider_key" ? "no_provider_key" : "no_console_key";
  if (status === 404) return "not_found";
  return codeForStatus(status);
};

/** True when the server answered and charged nothing — every failure the pipeline settles. */
export const chargedNothing = (error: unknown): boolean =>
  isLookupError(error) && error.status !== 0 && error.creditsCharged === 0;
