-- Credits a key has spent today (UTC), counting reservations still pending (status 102): what a
-- daily cap (api_keys.daily_credit_cap) is checked against, and what /v1/account reports.
CREATE OR REPLACE FUNCTION credits_spent_today(p_key text) RETURNS bigint LANGUAGE sql STABLE AS $s$
  SELECT COALESCE((SELECT sum(credits) FROM usage_daily WHERE key_id = p_key AND day = (now() AT TIME ZONE 'UTC')::date), 0)
       + COALESCE((SELECT sum(credits_charged) FROM usage_events WHERE key_id = p_key AND status = 102), 0)
$s$;

-- Credits a key has spent since the start of p_from (UTC; null: ever), counting reservations
-- still pending: what its monthly or total cap (api_keys.spend_cap_*) is checked against.
CREATE OR REPLACE FUNCTION credits_spent_since(p_key text, p_from date) RETURNS bigint LANGUAGE sql STABLE AS $s$
  SELECT COALESCE((SELECT sum(credits) FROM usage_daily WHERE key_id = p_key AND (p_from IS NULL OR day >= p_from)), 0)
       + COALESCE((SELECT sum(credits_charged) FROM usage_events WHERE key_id = p_key AND status = 102), 0)
$s$;

-- The first day of the period a key's own cap counts: this calendar month (UTC), or null for a total.
CREATE OR REPLACE FUNCTION spend_cap_from(p_period text) RETURNS date LANGUAGE sql STABLE AS $s$
  SELECT CASE WHEN p_period = 'month' THEN date_trunc('month', now() AT TIME ZONE 'UTC')::date END
$s$;

-- Credits a member's keys of a workspace have spent this calendar month (UTC), pending
-- reservations included: what the member's monthly budget is checked against.
CREATE OR REPLACE FUNCTION member_credits_spent_this_month(p_workspace text, p_user text) RETURNS bigint LANGUAGE sql STABLE AS $s$
  SELECT COALESCE(sum(credits_spent_since(k.id, spend_cap_from('month'))), 0)::bigint
  FROM api_keys k WHERE k.workspace_id = p_workspace AND COALESCE(k.owner_id, k.on_behalf_of) = p_user
$s$;
