-- Credits a key has spent today (UTC), counting reservations still pending (status 102): what a
-- daily cap (api_keys.daily_credit_cap) is checked against, and what /v1/account reports.
CREATE OR REPLACE FUNCTION credits_spent_today(p_key text) RETURNS bigint LANGUAGE sql STABLE AS $s$
  SELECT COALESCE((SELECT sum(credits) FROM usage_daily WHERE key_id = p_key AND day = (now() AT TIME ZONE 'UTC')::date), 0)
       + COALESCE((SELECT sum(credits_charged) FROM usage_events WHERE key_id = p_key AND status = 102), 0)
$s$;
