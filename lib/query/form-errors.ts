import { ConsoleApiError } from "./fetch-json";

/** A console API failure with this code: a form shows it beside the field it is about. */
export const isFieldError = (error: unknown, code: string): error is ConsoleApiError =>
  error instanceof ConsoleApiError && error.code === code;

/** The message a form shows above its buttons: any failure but the one shown beside its field. */
export const formLevelError = (error: Error | null, fieldCode: string): string | undefined =>
  error && !isFieldError(error, fieldCode) ? error.message : undefined;
