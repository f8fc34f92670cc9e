import type { AuthOutcome } from "@/lib/keys/authenticate";
import { log } from "@/lib/log";
import type { AccountReader } from "@/lib/usage/account-reader";
import { admit, type AdmitDeps, type Headers } from "./admit";
import { errorBody, successBody } from "./envelope";
import { messages } from "./errors";

/**
 * GET /v1/account: the calling key's balance and spend, so scripts can check before they spend.
 *
 * Decisions: it runs the same checks as a lookup up to the rate limit (lib/api/admit.ts: 401
 * `apiKey is null` / `apiKey is invalid`, then 429 `qps limit exceeded` — it counts against the
 * key's per-second limit like any call), and is FREE: nothing is charged and NO usage record is
 * written, so polling a balance never shows up as requests or errors in the usage charts, nor
 * writes a row per poll. Nothing in it can answer 400, 402 or 404. The figures are read fresh for
 * every request (`accounts` groups concurrent reads into one statement, never reuses an answer).
 */
export type AccountDeps = AdmitDeps & { accounts: AccountReader };

export type AccountResult = {
  status: 200 | 401 | 403 | 429 | 500;
  body: string;
  headers: Record<string, string>;
  /** The key the request authenticated (never its token), for the request log; absent before that. */
  keyId?: string;
};

export const runAccount = async (
  input: { authorization: string | null; clientAddress: string; authenticated?: AuthOutcome },
  deps: AccountDeps,
): Promise<AccountResult> => {
  const requestId = crypto.randomUUID();
  const fail = (status: 401 | 403 | 429 | 500, message: string, headers: Headers): AccountResult => ({
    status,
    body: errorBody(status, message, requestId),
    headers,
  });
  const internal = (error: unknown, keyId: string | null, headers: Headers) => {
    log.error("account request failed", { requestId, keyId, err: error });
    return fail(500, messages.internal, headers);
  };

  // Every key may read its account, whatever operations it may call; its address allowlist holds.
  const admitted = await admit(input.authorization, requestId, deps, { operationId: null, clientAddress: input.clientAddress }, input.authenticated).then(
    (admission) => ({ ok: true as const, admission }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!admitted.ok) return internal(admitted.error, null, { "X-Request-Id": requestId });
  const { admission } = admitted;
  if (admission.kind === "unauthenticated") return fail(401, admission.message, admission.headers);
  if (admission.kind === "forbidden") return { ...fail(403, admission.message, admission.headers), keyId: admission.key.id };
  if (admission.kind === "rate_limited") return { ...fail(429, messages.qps, admission.headers), keyId: admission.key.id };

  try {
    const key = await deps.accounts.read(admission.key.id);
    if (!key) {
      // Revoked or disabled since the credentials were cached.
      deps.authenticator.invalidate(admission.key.id);
      return fail(401, messages.keyInvalid, { "X-Request-Id": requestId });
    }
    return {
      status: 200,
      body: successBody(JSON.stringify({ key }), requestId),
      headers: { ...admission.headers, "X-Credits-Cost": "0", "X-Credits-Charged": "0", "X-Credits-Remaining": String(key.credits_remaining) },
      keyId: admission.key.id,
    };
  } catch (error) {
    return { ...internal(error, admission.key.id, admission.headers), keyId: admission.key.id };
  }
};
