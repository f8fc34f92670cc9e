-- Automatic refills (docs/api.md "Keys"). A key with a refill gets, at each period start (UTC), its credits
-- topped up to refill_credits ('top_up_to') or increased by them ('increase_by'), exactly once
-- per period: refilled_period records the period start it was last refilled for, and
-- refill_keys() moves it and the credits together under the key's row lock, so instances
-- sweeping at the same moment cannot both refill (the second finds the row locked, then no longer
-- due). A period missed while no instance ran is not made up: the next sweep refills once, for the
-- current period.
--
-- Who pays: a refill an analyst set is paid from their credit allowance (refill_payer_id), each
-- period exactly what it adds, in the same transaction; one an administrator or the operator's
-- CLI set (refill_payer_id NULL) is granted. When the allowance cannot pay a period's amount in
-- full, nothing is added and the refill stops (refill_stopped_at, refill_stopped_credits, audit
-- entry key.refill_stopped) until it is set again.

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

-- Refills every usable key whose period (as of `at`) has not been refilled yet and whose refill
-- has not stopped, with an audit entry each; returns what each got (a stopped refill got nothing
-- and is not returned).
--
-- Locks: every due key first, in id order, in one statement (FOR NO KEY UPDATE: what the UPDATE
-- takes anyway, and it leaves foreign-key checks of other rows pointing at the key alone); then,
-- key by key, the payer's row, so the keys of one payer are paid one after the other from what the
-- previous one left. Whoever else locks a key and its payer (a PATCH of the refill) takes the key
-- first too, so the two cannot wait on each other.
CREATE OR REPLACE FUNCTION refill_keys(at timestamptz)
RETURNS TABLE (r_key_id text, r_period date, r_added bigint, r_remaining bigint)
LANGUAGE plpgsql AS $f$
DECLARE
  due_ids text[];
  due_key record;
  v_period date;
  v_owed bigint;
BEGIN
  SELECT array_agg(locked.id ORDER BY locked.id) INTO due_ids FROM (
    SELECT ak.id FROM api_keys ak
    WHERE ak.refill_credits IS NOT NULL
      AND ak.refill_stopped_at IS NULL
      AND (ak.refilled_period IS NULL OR ak.refilled_period < refill_period_start(ak.refill_interval, ak.refill_day_of_month, at))
      AND ak.id IN (SELECT id FROM usable_keys)
      -- A key that draws from a team's pool is refilled through the pool (refill_pools).
      AND ak.pool_id IS NULL
    ORDER BY ak.id
    FOR NO KEY UPDATE OF ak
  ) locked;
  IF due_ids IS NULL THEN
    RETURN;
  END IF;

  FOR due_key IN
    SELECT ak.id, ak.credits_remaining, ak.refill_credits, ak.refill_interval, ak.refill_day_of_month, ak.refill_mode, ak.refill_payer_id
    FROM api_keys ak WHERE ak.id = ANY (due_ids) ORDER BY ak.id
  LOOP
    v_period := refill_period_start(due_key.refill_interval, due_key.refill_day_of_month, at);
    v_owed := CASE WHEN due_key.refill_mode = 'increase_by' THEN due_key.refill_credits
                   ELSE GREATEST(0, due_key.refill_credits - due_key.credits_remaining) END;

    IF due_key.refill_payer_id IS NOT NULL AND v_owed > 0 THEN
      -- One statement: takes the amount only if the allowance holds it (an administrator's is never taken from).
      UPDATE users SET credit_allowance = credit_allowance - CASE WHEN role = 'admin' THEN 0 ELSE v_owed END,
                       updated_at = now()
      WHERE id = due_key.refill_payer_id AND (role = 'admin' OR credit_allowance >= v_owed);
      IF NOT FOUND THEN
        UPDATE api_keys SET refill_stopped_at = at, refill_stopped_credits = v_owed WHERE id = due_key.id;
        INSERT INTO audit_log (actor_id, actor_email, action, target_type, target_id, details, ip)
        VALUES (NULL, 'refill', 'key.refill_stopped', 'key', due_key.id,
                json_build_object('period', v_period, 'interval', due_key.refill_interval, 'dayOfMonth', due_key.refill_day_of_month,
                                  'mode', due_key.refill_mode, 'credits', due_key.refill_credits,
                                  'creditsOwed', v_owed, 'payerId', due_key.refill_payer_id,
                                  'creditsRemaining', due_key.credits_remaining),
                '');
        CONTINUE;
      END IF;
    END IF;

    UPDATE api_keys SET credits_remaining = credits_remaining + v_owed, credits_granted = credits_granted + v_owed,
                        refilled_period = v_period
    WHERE id = due_key.id;
    INSERT INTO audit_log (actor_id, actor_email, action, target_type, target_id, details, ip)
    VALUES (NULL, 'refill', 'key.refill', 'key', due_key.id,
            json_build_object('period', v_period, 'interval', due_key.refill_interval, 'dayOfMonth', due_key.refill_day_of_month,
                              'mode', due_key.refill_mode, 'credits', due_key.refill_credits,
                              'creditsBefore', due_key.credits_remaining, 'creditsAfter', due_key.credits_remaining + v_owed,
                              'payerId', due_key.refill_payer_id),
            '');
    r_key_id := due_key.id;
    r_period := v_period;
    r_added := v_owed;
    r_remaining := due_key.credits_remaining + v_owed;
    RETURN NEXT;
  END LOOP;
END
$f$;

-- refill_pools(at): the team pools whose refill period began since their last refill, each
-- refilled once for the period (top_up_to: raised to refill_credits, never lowered; increase_by:
-- refill_credits added), audited in the pool's workspace. Pools are locked in id order, alone
-- (settlement locks keys before pools, so no cycle).
CREATE OR REPLACE FUNCTION refill_pools(at timestamptz)
RETURNS TABLE (r_workspace_id text, r_period date, r_added bigint, r_remaining bigint)
LANGUAGE plpgsql AS $f$
DECLARE
  due record;
  v_period date;
  v_owed bigint;
BEGIN
  FOR due IN
    SELECT w.id, w.pool_credits, w.refill_credits, w.refill_interval, w.refill_day_of_month, w.refill_mode
    FROM workspaces w
    WHERE w.refill_credits IS NOT NULL AND w.personal_user_id IS NULL
      AND (w.refilled_period IS NULL OR w.refilled_period < refill_period_start(w.refill_interval, w.refill_day_of_month, at))
    ORDER BY w.id
    FOR NO KEY UPDATE OF w
  LOOP
    v_period := refill_period_start(due.refill_interval, due.refill_day_of_month, at);
    v_owed := CASE WHEN due.refill_mode = 'increase_by' THEN due.refill_credits
                   ELSE GREATEST(0, due.refill_credits - due.pool_credits) END;
    UPDATE workspaces SET pool_credits = pool_credits + v_owed, pool_granted = pool_granted + v_owed, refilled_period = v_period
    WHERE id = due.id;
    INSERT INTO audit_log (actor_id, actor_email, action, target_type, target_id, details, ip, workspace_id)
    VALUES (NULL, 'refill', 'pool.refill', 'workspace', due.id,
            json_build_object('period', v_period, 'interval', due.refill_interval, 'dayOfMonth', due.refill_day_of_month,
                              'mode', due.refill_mode, 'credits', due.refill_credits,
                              'creditsBefore', due.pool_credits, 'creditsAfter', due.pool_credits + v_owed),
            '', due.id);
    r_workspace_id := due.id;
    r_period := v_period;
    r_added := v_owed;
    r_remaining := due.pool_credits + v_owed;
    RETURN NEXT;
  END LOOP;
END
$f$;
