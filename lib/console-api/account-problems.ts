import { DomainError } from "@/lib/errors";
import type { AccountResult } from "@/lib/users/manage";

/** Account problems (lib/users/manage.ts) as the console API answers them: the code's status is handler.ts statusOf's. */
export const unwrapAccount = <T>(result: AccountResult<T>): T => {
  if (result.ok) return result.value;
  throw new DomainError(result.code, result.message);
};
