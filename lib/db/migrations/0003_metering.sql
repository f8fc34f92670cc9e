
ALTER TABLE usage_events ADD COLUMN reason text NOT NULL DEFAULT '';
-- 102: a reservation whose lookup is still running (upstream); finalised by commit or refund.
CREATE INDEX usage_events_pending_idx ON usage_events (key_id) WHERE status = 102;

ALTER TABLE api_keys ADD COLUMN daily_credit_cap bigint CHECK (daily_credit_cap IS NULL OR daily_credit_cap >= 0);
ALTER TABLE api_keys ADD COLUMN alert_threshold_credits bigint CHECK (alert_threshold_credits IS NULL OR alert_threshold_credits >= 0);
ALTER TABLE api_keys ADD COLUMN alert_threshold_percent integer CHECK (alert_threshold_percent IS NULL OR alert_threshold_percent BETWEEN 1 AND 99);
ALTER TABLE api_keys ADD COLUMN alert_webhook_url text;

-- Per key, UTC day, operation and status: written in the same transaction as each usage row,
-- so charts and daily caps read a few rows instead of scanning usage_events.
-- latency_buckets[i] counts requests with latency in [2^(i-1), 2^i) ms (bucket 1: < 1 ms).
CREATE TABLE usage_daily (
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  day date NOT NULL,
  operation text NOT NULL,
  status integer NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  credits bigint NOT NULL DEFAULT 0,
  latency_ms_sum bigint NOT NULL DEFAULT 0,
  latency_buckets integer[] NOT NULL DEFAULT array_fill(0, ARRAY[16]),
  PRIMARY KEY (key_id, day, operation, status)
);
CREATE INDEX usage_daily_day_idx ON usage_daily (day);

-- Low-credit alerts: one row per crossing, written by the charge that crossed.
CREATE TABLE key_alerts (
  id bigserial PRIMARY KEY,
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('threshold', 'zero')),
  threshold_credits bigint,
  credits_remaining bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  acknowledged_at timestamptz
);
CREATE INDEX key_alerts_key_idx ON key_alerts (key_id, created_at DESC);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  alert_id bigint NOT NULL REFERENCES key_alerts(id) ON DELETE CASCADE,
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  url text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE FUNCTION usage_bucket(latency_ms integer) RETURNS integer LANGUAGE sql IMMUTABLE AS $b$
  SELECT LEAST(16, CASE WHEN latency_ms < 1 THEN 1 ELSE floor(log(2, latency_ms::numeric))::integer + 2 END)
$b$;

CREATE FUNCTION record_daily(p_key text, p_at timestamptz, p_operation text, p_status integer, p_credits integer, p_latency integer)
RETURNS void LANGUAGE plpgsql AS $r$
DECLARE
  bucket integer := usage_bucket(p_latency);
BEGIN
  INSERT INTO usage_daily AS d (key_id, day, operation, status, requests, credits, latency_ms_sum, latency_buckets)
    VALUES (p_key, (p_at AT TIME ZONE 'UTC')::date, p_operation, p_status, 1, p_credits, p_latency,
            (SELECT array_agg(CASE WHEN i = bucket THEN 1 ELSE 0 END ORDER BY i) FROM generate_series(1, 16) i))
  ON CONFLICT (key_id, day, operation, status) DO UPDATE SET
    requests = d.requests + 1,
    credits = d.credits + EXCLUDED.credits,
    latency_ms_sum = d.latency_ms_sum + EXCLUDED.latency_ms_sum,
    latency_buckets[bucket] = d.latency_buckets[bucket] + 1;
END
$r$;

-- Credits a key has spent today (UTC), counting reservations still pending.
CREATE FUNCTION credits_spent_today(p_key text) RETURNS bigint LANGUAGE sql STABLE AS $s$
  SELECT COALESCE((SELECT sum(credits) FROM usage_daily WHERE key_id = p_key AND day = (now() AT TIME ZONE 'UTC')::date), 0)
       + COALESCE((SELECT sum(credits_charged) FROM usage_events WHERE key_id = p_key AND status = 102), 0)
$s$;

-- Settles a batch of authenticated requests in one statement (group commit). Per request, in
-- arrival order per key: the charge is one conditional UPDATE (credits and daily cap), the usage
-- row and the daily rollup are written in the same transaction, and a charge that crosses the
-- key's low-credit threshold (or reaches zero) records one alert.
-- outcome: 'found' | 'not_found' | '400' | '429' | '500' — a finished request;
--          'reserve' — charge now, usage row pending (102) until 'commit' or 'refund';
--          'commit' — the reserved lookup succeeded (200);
--          'refund' — the reserved lookup failed with final_status: credits go back.
-- A request id settled before is reported as recorded (idempotent), and a request that arrives
-- after its caller's deadline is recorded as the uncharged 500 its caller answered.
CREATE FUNCTION settle_requests(batch json)
RETURNS TABLE (r_request_id uuid, r_status integer, r_charged integer, r_remaining bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  item record;
  k record;
  remaining bigint;
  key_usable boolean;
  final_status integer;
  charged integer;
  why text;
  cap bigint;
  threshold bigint;
  pending record;
  prior record;
BEGIN
  FOR item IN
    SELECT x.* FROM json_to_recordset(batch) AS x(
      ord integer, request_id uuid, key_id text, operation text, cost integer, outcome text,
      final_status integer, latency_ms integer, params_summary text, created_at timestamptz, deadline timestamptz)
    ORDER BY x.key_id, x.ord
  LOOP
    charged := 0;
    remaining := NULL;
    why := '';

    IF item.outcome NOT IN ('commit', 'refund') THEN
      -- Settled before (a retry after a lost answer): report what was recorded, change nothing.
      SELECT u.status, u.credits_charged INTO prior FROM usage_events u WHERE u.request_id = item.request_id;
      IF FOUND THEN
        SELECT kk.credits_remaining INTO remaining FROM api_keys kk WHERE kk.id = item.key_id;
        r_request_id := item.request_id;
        r_status := CASE WHEN prior.status = 102 THEN 200 ELSE prior.status END;
        r_charged := prior.credits_charged;
        r_remaining := COALESCE(remaining, 0);
        RETURN NEXT;
        CONTINUE;
      END IF;
      -- Arrived after the caller gave up and answered 500 (a database outage): record that, and
      -- charge nothing, so the client is never charged for an answer it did not get.
      IF item.deadline IS NOT NULL AND clock_timestamp() > item.deadline THEN
        INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at, reason)
          VALUES (item.request_id, item.key_id, item.operation, 500, 0, item.latency_ms, item.params_summary, item.created_at, 'timeout');
        PERFORM record_daily(item.key_id, item.created_at, item.operation, 500, 0, item.latency_ms);
        SELECT kk.credits_remaining INTO remaining FROM api_keys kk WHERE kk.id = item.key_id;
        r_request_id := item.request_id;
        r_status := 500;
        r_charged := 0;
        r_remaining := COALESCE(remaining, 0);
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;

    IF item.outcome IN ('commit', 'refund') THEN
      SELECT u.id, u.credits_charged INTO pending FROM usage_events u
        WHERE u.request_id = item.request_id AND u.status = 102 FOR UPDATE;
      IF NOT FOUND THEN
        -- Already finalised (e.g. by the sweeper): report the key's state, change nothing.
        SELECT kk.credits_remaining INTO remaining FROM api_keys kk WHERE kk.id = item.key_id;
        r_request_id := item.request_id; r_status := 500; r_charged := 0; r_remaining := COALESCE(remaining, 0);
        RETURN NEXT;
        CONTINUE;
      END IF;
      IF item.outcome = 'commit' THEN
        final_status := 200;
        charged := pending.credits_charged;
        UPDATE usage_events SET status = 200, latency_ms = item.latency_ms WHERE id = pending.id;
        SELECT kk.credits_remaining INTO remaining FROM api_keys kk WHERE kk.id = item.key_id;
      ELSE
        final_status := item.final_status;
        UPDATE usage_events SET status = item.final_status, credits_charged = 0, latency_ms = item.latency_ms,
            reason = 'refunded'
          WHERE id = pending.id;
        UPDATE api_keys kk SET credits_remaining = kk.credits_remaining + pending.credits_charged
          WHERE kk.id = item.key_id RETURNING kk.credits_remaining INTO remaining;
      END IF;
      PERFORM record_daily(item.key_id, item.created_at, item.operation, final_status, charged, item.latency_ms);
      r_request_id := item.request_id; r_status := final_status; r_charged := charged; r_remaining := remaining;
      RETURN NEXT;
      CONTINUE;
    END IF;

    IF item.outcome IN ('found', 'reserve') THEN
      UPDATE api_keys kk
        SET credits_remaining = kk.credits_remaining - item.cost, last_used_at = item.created_at
        WHERE kk.id = item.key_id AND kk.status = 'active'
          AND (kk.expires_at IS NULL OR kk.expires_at > now())
          AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = kk.owner_id AND u.status = 'disabled')
          AND kk.credits_remaining >= item.cost
          AND (kk.daily_credit_cap IS NULL OR credits_spent_today(kk.id) + item.cost <= kk.daily_credit_cap)
        RETURNING kk.credits_remaining, kk.credits_granted, kk.alert_threshold_credits, kk.alert_threshold_percent
        INTO k;
      IF FOUND THEN
        remaining := k.credits_remaining;
        final_status := CASE WHEN item.outcome = 'reserve' THEN 102 ELSE 200 END;
        charged := item.cost;
        threshold := COALESCE(k.alert_threshold_credits,
          CASE WHEN k.alert_threshold_percent IS NULL THEN NULL
               ELSE ceil(k.credits_granted * k.alert_threshold_percent / 100.0)::bigint END);
        IF threshold IS NOT NULL AND remaining + item.cost > threshold AND remaining <= threshold AND remaining > 0 THEN
          INSERT INTO key_alerts (key_id, kind, threshold_credits, credits_remaining) VALUES (item.key_id, 'threshold', threshold, remaining);
        END IF;
        IF remaining = 0 AND item.cost > 0 THEN
          INSERT INTO key_alerts (key_id, kind, threshold_credits, credits_remaining) VALUES (item.key_id, 'zero', threshold, 0);
        END IF;
      END IF;
    END IF;

    IF remaining IS NULL THEN
      UPDATE api_keys kk SET last_used_at = item.created_at
        WHERE kk.id = item.key_id
        RETURNING kk.credits_remaining, kk.daily_credit_cap,
          (kk.status = 'active' AND (kk.expires_at IS NULL OR kk.expires_at > now())
           AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = kk.owner_id AND u.status = 'disabled'))
        INTO remaining, cap, key_usable;
      IF NOT FOUND THEN
        remaining := 0;
        key_usable := false;
      END IF;
      IF item.outcome IN ('found', 'not_found', 'reserve') THEN
        IF NOT key_usable THEN
          final_status := 401;
        ELSIF remaining < item.cost THEN
          final_status := 402; why := 'credits';
        ELSIF cap IS NOT NULL AND credits_spent_today(item.key_id) + item.cost > cap THEN
          final_status := 402; why := 'daily_cap';
        ELSIF item.outcome = 'not_found' THEN
          final_status := 404;
        ELSE
          -- 'found'/'reserve' refused by the conditional UPDATE for no reason visible now:
          -- a concurrent change; answer as short of credits, charging nothing.
          final_status := 402; why := 'credits';
        END IF;
      ELSE
        final_status := item.outcome::integer;
      END IF;
    END IF;

    IF final_status <> 401 THEN
      INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at, reason)
        VALUES (item.request_id, item.key_id, item.operation, final_status, charged, item.latency_ms, item.params_summary, item.created_at, why);
      IF final_status <> 102 THEN
        PERFORM record_daily(item.key_id, item.created_at, item.operation, final_status, charged, item.latency_ms);
      END IF;
    END IF;
    r_request_id := item.request_id;
    r_status := CASE WHEN final_status = 102 THEN 200 ELSE final_status END;
    r_charged := charged;
    r_remaining := remaining;
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- Reservations left pending by a process that died mid-request: refunded and recorded as 500,
-- so a request is in the end either charged with a 200 record or not charged at all.
CREATE FUNCTION sweep_stale_reservations(older_than interval) RETURNS integer LANGUAGE plpgsql AS $sw$
DECLARE
  swept integer := 0;
  stale record;
BEGIN
  FOR stale IN
    SELECT u.id, u.key_id, u.operation, u.created_at, u.credits_charged FROM usage_events u
    WHERE u.status = 102 AND u.created_at < now() - older_than
    FOR UPDATE SKIP LOCKED
  LOOP
    UPDATE usage_events SET status = 500, credits_charged = 0, reason = 'abandoned' WHERE id = stale.id;
    UPDATE api_keys SET credits_remaining = credits_remaining + stale.credits_charged WHERE id = stale.key_id;
    PERFORM record_daily(stale.key_id, stale.created_at, stale.operation, 500, 0, 0);
    swept := swept + 1;
  END LOOP;
  RETURN swept;
END
$sw$;

-- Requests whose answer was lost (the caller timed out and answered 500, but the commit went
-- through): refund them and record them as the 500 the client saw. Pending reservations too.
CREATE FUNCTION void_settlements(request_ids uuid[]) RETURNS integer LANGUAGE plpgsql AS $v$
DECLARE
  voided integer := 0;
  lost record;
BEGIN
  FOR lost IN
    SELECT u.id, u.key_id, u.operation, u.status, u.credits_charged, u.created_at, u.latency_ms
    FROM usage_events u WHERE u.request_id = ANY(request_ids) AND u.status IN (200, 102)
    FOR UPDATE
  LOOP
    UPDATE usage_events SET status = 500, credits_charged = 0, reason = 'answer_lost' WHERE id = lost.id;
    UPDATE api_keys SET credits_remaining = credits_remaining + lost.credits_charged WHERE id = lost.key_id;
    IF lost.status = 200 THEN
      UPDATE usage_daily d SET requests = d.requests - 1, credits = d.credits - lost.credits_charged,
          latency_ms_sum = d.latency_ms_sum - lost.latency_ms,
          latency_buckets[usage_bucket(lost.latency_ms)] = d.latency_buckets[usage_bucket(lost.latency_ms)] - 1
        WHERE d.key_id = lost.key_id AND d.day = (lost.created_at AT TIME ZONE 'UTC')::date
          AND d.operation = lost.operation AND d.status = 200;
    END IF;
    PERFORM record_daily(lost.key_id, lost.created_at, lost.operation, 500, 0, lost.latency_ms);
    voided := voided + 1;
  END LOOP;
  RETURN voided;
END
$v$;
