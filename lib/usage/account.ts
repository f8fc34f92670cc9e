import { errorBody, successBody } from "@/lib/api/envelope";
import { messages } from "@/lib/api/errors";
import type { Queryable } from "@/lib/db/client";
import type { Authenticator } from "@/lib/keys/authenticate";
import { describeError, log } from "@/lib/log";
import { RATE_LIMIT_HEADER_NAMES, rateLimitHeaders, resetSeconds } from "@/lib/ratelimit/headers";
import type { RateLimiter } from "@/lib/ratelimit/limiter";
import type { AccountData } from "./account-schema";

/**
 * GET /v1/account: the calling key's balance and spend, so scripts can check before they spend.
 *
 * Decisions: it runs the same checks as a lookup up to the rate limit (401 `apiKey is null` /
 * `apiKey is invalid`, then 429 `qps limit exceeded` — it counts against the key's per-second
 * limit like any call), and is FREE: nothing is charged and NO usage record is written, so
 * polling a balance never shows up as requests or errors in the usage charts, nor writes a row
 * per poll. Nothing in it can answer 400, 402 or 404.
 */
export type AccountDeps = {
  db: () => Promise<Queryable>;
  authenticator: Authenticator;
  limiter: RateLimiter;
};

export type AccountResult = { status: 200 | 401 | 429 | 500; body: string; headers: Record<string, string> };

type AccountRow = {
  id: string;
  name: string;
  credits_remaining: number;
  credits_granted: number;
  qps_limit: number;
  daily_credit_cap: number | null;
  today: number;
  month: number;
};

/** The key's figures, read fresh; null when the key is not (or no longer) active. */
export const keyAccount = async (db: Queryable, keyId: string): Promise<AccountData["key"] | null> => {
  const rows = await db.query<AccountRow>(
    `SELECT k.id, k.name, k.credits_remaining::float8 AS credits_remaining, k.credits_granted::float8 AS credits_granted,
       k.qps_limit, k.daily_credit_cap::float8 AS daily_credit_cap,
       credits_spent_today(k.id)::float8 AS today,
       (COALESCE((SELECT sum(d.credits) FROM usage_daily d
                  WHERE d.key_id = k.id AND d.day >= date_trunc('month', now() AT TIME ZONE 'UTC')::date), 0)
        + COALESCE((SELECT sum(u.credits_charged) FROM usage_events u WHERE u.key_id = k.id AND u.status = 102), 0))::float8 AS month
     FROM api_keys k
     WHERE k.id = $1 AND k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > now())
       AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.owner_id AND u.status = 'disabled')`,
    [keyId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    credits_remaining: row.credits_remaining,
    credits_granted: row.credits_granted,
    qps_limit: row.qps_limit,
    daily_credit_cap: row.daily_credit_cap,
    credits_spent_today: row.today,
    credits_spent_this_month: row.month,
  };
};

export const runAccount = async (input: { authorization: string | null }, deps: AccountDeps): Promise<AccountResult> => {
  const requestId = crypto.randomUUID();
  const headers: Record<string, string> = { "X-Request-Id": requestId };
  const fail = (status: 401 | 429 | 500, message: string): AccountResult => ({ status, body: errorBody(status, message, requestId), headers });
  let keyId: string | null = null;
  try {
    const auth = await deps.authenticator.authenticate(input.authorization);
    if (!auth.ok) return fail(401, auth.message);
    keyId = auth.key.id;

    const rate = await deps.limiter.consume(auth.key.id, auth.key.qpsLimit);
    Object.assign(headers, rateLimitHeaders(rate));
    if (!rate.allowed) {
      headers["Retry-After"] = String(resetSeconds(rate));
      return fail(429, messages.qps);
    }

    const key = await keyAccount(await deps.db(), auth.key.id);
    if (!key) {
      // Revoked or disabled since the credentials were cached.
      deps.authenticator.invalidate(auth.key.id);
      for (const name of RATE_LIMIT_HEADER_NAMES) delete headers[name];
      return fail(401, messages.keyInvalid);
    }
    headers["X-Credits-Cost"] = "0";
    headers["X-Credits-Charged"] = "0";
    headers["X-Credits-Remaining"] = String(key.credits_remaining);
    return { status: 200, body: successBody(JSON.stringify({ key }), requestId), headers };
  } catch (error) {
    log.error("account request failed", { requestId, keyId, error: describeError(error) });
    return fail(500, messages.internal);
  }
};
