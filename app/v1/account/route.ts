import { envelopeResponse, plainError } from "@/lib/api/envelope";
import { messages } from "@/lib/api/errors";
import { methodNotAllowed } from "@/lib/api/with-api-key";
import { describeError, log } from "@/lib/log";
import { services } from "@/lib/services";
import { runAccount } from "@/lib/api/account";

export const dynamic = "force-dynamic";

/** The calling key's balance and spend. Free: no credits, no usage record (lib/api/account.ts). */
export const GET = async (request: Request): Promise<Response> => {
  try {
    const result = await runAccount({ authorization: request.headers.get("authorization") }, await services());
    return envelopeResponse(result.status, result.body, result.headers);
  } catch (error) {
    log.error("account endpoint unavailable", { error: describeError(error) });
    return plainError(500, messages.internal);
  }
};
export const HEAD = methodNotAllowed;
export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
export const OPTIONS = methodNotAllowed;
