-- Automatic refills (issue 21). A key with a refill gets, at each period start (UTC), its credits
-- topped up to refill_credits ('top_up_to') or increased by them ('increase_by'), exactly once
-- per period: refilled_period records the period start it was last refilled for, and the one
-- statement of refill_keys() moves it and the credits together, so instances sweeping at the same
-- moment cannot both refill (the second finds the row locked, then no longer due). A period missed
-- while no instance ran is not made up: the next sweep refills once, for the current period.

-- The day_of_month-th day of the month starting at month_start, or its last day when shorter
-- (a refill on the 31st runs on 28 or 29 February).
CREATE OR REPLACE FUNCTION refill_day_in_month(month_start date, day_of_month integer) RETURNS date
LANGUAGE sql IMMUTABLE AS $f$
  SELECT month_start + (LEAST(COALESCE(day_of_month, 1),
                              (month_start + interval '1 month')::date - month_start) - 1)
$f$;

-- The start (a UTC day) of the refill period that `at` falls in.
CREATE OR REPLACE FUNCTION refill_period_start(refill_interval text, day_of_month integer, at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE AS $f$
  SELECT CASE
    WHEN refill_interval = 'daily' THEN t.day
    WHEN t.day >= refill_day_in_month(t.month, day_of_month) THEN refill_day_in_month(t.month, day_of_month)
    ELSE refill_day_in_month((t.month - interval '1 month')::date, day_of_month)
  END
  FROM (SELECT (at AT TIME ZONE 'UTC')::date AS day,
               date_trunc('month', (at AT TIME ZONE 'UTC'))::date AS month) t
$f$;

-- When the refill after the one for `at`'s period runs.
CREATE OR REPLACE FUNCTION next_refill_at(refill_interval text, day_of_month integer, at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $f$
  SELECT (CASE
    WHEN refill_interval = 'daily' THEN p.start + 1
    ELSE refill_day_in_month((date_trunc('month', p.start::timestamp) + interval '1 month')::date, day_of_month)
  END)::timestamp AT TIME ZONE 'UTC'
  FROM (SELECT refill_period_start(refill_interval, day_of_month, at) AS start) p
$f$;

-- Refills every usable key whose period (as of `at`) has not been refilled yet, with an audit
-- entry each; returns what each got.
CREATE OR REPLACE FUNCTION refill_keys(at timestamptz)
RETURNS TABLE (r_key_id text, r_period date, r_added bigint, r_remaining bigint)
LANGUAGE sql AS $f$
  WITH due AS (
    SELECT k.id, k.credits_remaining AS before, refill_period_start(k.refill_interval, k.refill_day_of_month, at) AS period
    FROM api_keys k
    WHERE k.refill_credits IS NOT NULL
      AND (k.refilled_period IS NULL OR k.refilled_period < refill_period_start(k.refill_interval, k.refill_day_of_month, at))
      AND k.id IN (SELECT id FROM usable_keys)
    ORDER BY k.id
    FOR UPDATE OF k
  ), refilled AS (
    UPDATE api_keys k SET
      credits_remaining = CASE WHEN k.refill_mode = 'increase_by' THEN k.credits_remaining + k.refill_credits
                               ELSE GREATEST(k.credits_remaining, k.refill_credits) END,
      credits_granted = k.credits_granted + CASE WHEN k.refill_mode = 'increase_by' THEN k.refill_credits
                                                 ELSE GREATEST(0, k.refill_credits - k.credits_remaining) END,
      refilled_period = d.period
    FROM due d
    WHERE k.id = d.id
    RETURNING k.id, d.period, d.before, k.credits_remaining, k.refill_mode, k.refill_credits, k.refill_interval, k.refill_day_of_month
  ), audited AS (
    INSERT INTO audit_log (actor_id, actor_email, action, target_type, target_id, details, ip)
    SELECT NULL, 'refill', 'key.refill', 'key', r.id,
           json_build_object('period', r.period, 'interval', r.refill_interval, 'dayOfMonth', r.refill_day_of_month,
                             'mode', r.refill_mode, 'credits', r.refill_credits,
                             'creditsBefore', r.before, 'creditsAfter', r.credits_remaining),
           ''
    FROM refilled r
  )
  SELECT r.id, r.period, r.credits_remaining - r.before, r.credits_remaining FROM refilled r
$f$;
