import type { AccountProblemCode, AccountResult } from "@/lib/users/manage";
import { ConsoleError } from "./handler";

/** The HTTP face of account problems (lib/users/manage.ts) in the console API. */
const statusOf: Record<AccountProblemCode, ConsoleError["status"]> = {
  not_found: 404,
  email_taken: 409,
  wrong_password: 400,
  no_password: 400,
  self_disable: 400,
  too_many_attempts: 429,
};

export const unwrapAccount = <T>(result: AccountResult<T>): T => {
  if (result.ok) return result.value;
  throw new ConsoleError(statusOf[result.code], result.code, result.message);
};
