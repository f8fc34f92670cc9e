/**
 * Schema migrations, applied in order and recorded in schema_migrations. The schema's history is
 * kept as strings in code; the credit policy (functions and the usable_keys view) lives in .sql
 * files beside its domain (lib/db/policy.ts) and is applied by 0006 whenever it changes.
 * The same SQL runs on PGlite and PostgreSQL. Never edit a migration that has landed: add one.
 */
import { creditPolicySql, keyPolicySql } from "./policy";

/**
 * repeatable: the migration's SQL is the current text of files that may change (the credit
 * policy, lib/db/policy.ts); it is applied again whenever that text changes (its checksum is
 * recorded), so editing a policy file is enough — its CREATE OR REPLACE statements are safe to
 * run again. A plain migration runs once and is never edited.
 */
export type Migration = { id: string; sql: () => string; repeatable?: boolean };

const init = /* sql */ `
CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL DEFAULT '',
  role text NOT NULL CHECK (role IN ('admin', 'analyst')),
  password_hash text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  credit_allowance bigint NOT NULL DEFAULT 0 CHECK (credit_allowance >= 0),
  session_version integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner_id text REFERENCES users(id),
  token_hash bytea NOT NULL UNIQUE,
  token_prefix text NOT NULL,
  previous_token_hash bytea,
  previous_token_expires_at timestamptz,
  credits_remaining bigint NOT NULL CHECK (credits_remaining >= 0),
  credits_granted bigint NOT NULL CHECK (credits_granted >= 0),
  qps_limit integer NOT NULL DEFAULT 5 CHECK (qps_limit BETWEEN 1 AND 100000),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  expires_at timestamptz
);
CREATE INDEX api_keys_owner_idx ON api_keys (owner_id);

CREATE TABLE usage_events (
  id bigserial PRIMARY KEY,
  request_id uuid NOT NULL UNIQUE,
  key_id text NOT NULL REFERENCES api_keys(id),
  operation text NOT NULL,
  status integer NOT NULL,
  credits_charged integer NOT NULL CHECK (credits_charged >= 0),
  latency_ms integer NOT NULL,
  params_summary text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_events_key_time_idx ON usage_events (key_id, created_at DESC, id DESC);
CREATE INDEX usage_events_time_idx ON usage_events (created_at DESC, id DESC);

-- Records are kept as the API's own JSON text (json keeps key order, jsonb would not).
CREATE TABLE events (
  event_id text PRIMARY KEY,
  record json NOT NULL,
  source text NOT NULL DEFAULT 'import',
  fetched_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pin_users (
  user_id text PRIMARY KEY,
  node_id text NOT NULL UNIQUE,
  follower_count integer NOT NULL DEFAULT 0,
  source text NOT NULL DEFAULT 'import',
  fetched_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pin_followers (
  user_id text NOT NULL REFERENCES pin_users(user_id) ON DELETE CASCADE,
  position integer NOT NULL,
  record json NOT NULL,
  PRIMARY KEY (user_id, position)
);

CREATE TABLE profiles (
  urn text PRIMARY KEY,
  publication_count integer NOT NULL DEFAULT 0,
  source text NOT NULL DEFAULT 'import',
  fetched_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE publications (
  urn text NOT NULL REFERENCES profiles(urn) ON DELETE CASCADE,
  position integer NOT NULL,
  record json NOT NULL,
  PRIMARY KEY (urn, position)
);

`;

const accounts = /* sql */ `
-- Keys whose token the console may use for lookups: the token kept encrypted (AES-256-GCM),
-- never sent to a browser. users.console_key_id is the one in use.
CREATE TABLE console_tokens (
  key_id text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_encrypted text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_tokens_user_idx ON console_tokens (user_id);
ALTER TABLE users ADD COLUMN console_key_id text REFERENCES api_keys(id) ON DELETE SET NULL;

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  actor_id text REFERENCES users(id) ON DELETE SET NULL,
  actor_email text NOT NULL,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  details json NOT NULL DEFAULT '{}',
  ip text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_time_idx ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id);
`;

const metering = /* sql */ `
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
`;

const upstream = /* sql */ `
-- Per-user provider keys (UPSTREAM_KEY_MODE=per-user): the key sealed with AES-256-GCM, bound to
-- its user; only a hint is ever shown. last_error: the provider's latest refusal of the key.
CREATE TABLE provider_keys (
  user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  key_encrypted text NOT NULL,
  key_hint text NOT NULL,
  validated_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  last_error_at timestamptz
);

-- Settings an admin changes at run time (the shared provider base URL and key); secrets sealed.
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL,
  encrypted boolean NOT NULL DEFAULT false,
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The upstream cache: one row per page fetched from the provider. The records themselves live in
-- the record tables (source 'upstream'); a row says where its page sits in the stored list
-- (start_position, entry_count) and when it was fetched. page: 0 for an event, the offset for
-- followers, the page number for publications.
CREATE TABLE upstream_pages (
  kind text NOT NULL CHECK (kind IN ('event', 'followers', 'publications')),
  subject text NOT NULL,
  page integer NOT NULL,
  start_position integer NOT NULL,
  entry_count integer NOT NULL,
  has_more boolean NOT NULL DEFAULT false,
  total integer,
  fetched_at timestamptz NOT NULL,
  PRIMARY KEY (kind, subject, page)
);

-- Our follower cursors carry (user, offset); the provider's cursor for that offset is kept here.
CREATE TABLE upstream_cursors (
  user_id text NOT NULL,
  position integer NOT NULL,
  provider_node_id text NOT NULL,
  provider_cursor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, position)
);
`;

const usage = /* sql */ `
-- Webhook deliveries (lib/alerts/webhooks.ts): at most one per alert, which the worker's
-- INSERT … ON CONFLICT relies on when several instances run it; the signed body is kept so that
-- every retry sends the same bytes and the delivery log can show them.
CREATE UNIQUE INDEX webhook_deliveries_alert_idx ON webhook_deliveries (alert_id);
CREATE INDEX webhook_deliveries_key_idx ON webhook_deliveries (key_id, created_at DESC, id DESC);
ALTER TABLE webhook_deliveries ADD COLUMN payload text NOT NULL DEFAULT '';
-- The request log filtered by status (lib/usage/events.ts): errors are the sparse rows a filter
-- looks for, so these partial indexes hold only non-200 rows and cost the write path nothing
-- on a success. Each gives a keyset range scan per key (or over everyone) for one status.
CREATE INDEX usage_events_key_status_time_idx ON usage_events (key_id, status, created_at DESC, id DESC) WHERE status <> 200;
CREATE INDEX usage_events_status_time_idx ON usage_events (status, created_at DESC, id DESC) WHERE status <> 200;
-- The worker scans only recent alerts; the console banner only unacknowledged ones.
CREATE INDEX key_alerts_time_idx ON key_alerts (created_at);
CREATE INDEX key_alerts_open_idx ON key_alerts (key_id, created_at DESC) WHERE acknowledged_at IS NULL;
`;

/**
 * Sessions that end on the server (lib/auth/session-store.ts): a signed-out session's id until
 * its cookie would have expired anyway; and the addresses each user has signed in from, which
 * the per-account sign-in backoff leaves alone (lib/auth/sign-in.ts).
 */
const sessions = /* sql */ `
CREATE TABLE revoked_sessions (
  session_id text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_sessions_expiry_idx ON revoked_sessions (expires_at);
CREATE TABLE sign_in_addresses (
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  address text NOT NULL,
  last_success_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, address)
);
`;

const batches = /* sql */ `
-- Batch lookups (lib/batches): a job per batch, a row per (batch, input, page) it looks up.
-- One instance runs a batch at a time: it holds the lease (lease_owner until lease_expires_at)
-- and renews it as it goes; a batch whose lease ran out is taken over by any instance.
CREATE TABLE batches (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id),
  operation text NOT NULL,
  max_pages integer NOT NULL DEFAULT 1 CHECK (max_pages >= 1),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'paused', 'done', 'stopped', 'canceled')),
  stop_reason text CHECK (stop_reason IN ('cap', 'credits', 'key')),
  total integer NOT NULL CHECK (total >= 0),
  done integer NOT NULL DEFAULT 0,
  succeeded integer NOT NULL DEFAULT 0,
  not_found integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  max_credits bigint NOT NULL CHECK (max_credits >= 0),
  max_cost_credits bigint NOT NULL CHECK (max_cost_credits >= 0),
  -- Never above max_credits: each lookup is reserved against the cap before it runs.
  credits_spent bigint NOT NULL DEFAULT 0 CHECK (credits_spent >= 0 AND credits_spent <= max_credits),
  retry_of text REFERENCES batches(id),
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX batches_user_idx ON batches (user_id, created_at DESC, id DESC);
CREATE INDEX batches_runnable_idx ON batches (created_at, id) WHERE status IN ('queued', 'running');

-- Per input: where it stands once its pages are looked up (outcome is set when it is done).
CREATE TABLE batch_inputs (
  batch_id text NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  position integer NOT NULL,
  input text NOT NULL,
  outcome text CHECK (outcome IN ('succeeded', 'not_found', 'failed')),
  PRIMARY KEY (batch_id, position)
);

-- A lookup of the batch: pending → in_flight (attempt_id set, credits reserved against the cap)
-- → done. The primary key makes a page a lookup at most once; request_id ties it to its usage
-- record, which is how an attempt cut short by a crash is found charged or not.
CREATE TABLE batch_items (
  batch_id text NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  position integer NOT NULL,
  page integer NOT NULL CHECK (page >= 1),
  query text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'in_flight', 'done')),
  attempt_id uuid,
  attempt_started_at timestamptz,
  key_id text,
  http_status integer,
  credits_charged integer NOT NULL DEFAULT 0,
  request_id uuid UNIQUE,
  message text,
  summary text,
  data text,
  finished_at timestamptz,
  PRIMARY KEY (batch_id, position, page)
);
CREATE INDEX batch_items_open_idx ON batch_items (batch_id, position, page) WHERE state <> 'done';
`;

/**
 * Personal data under control (lib/privacy): subjects an admin suppressed (their records erased,
 * never answered or collected again), a lease so that one instance at a time runs a periodic job
 * (the retention sweep), and indexes the sweep reads by age.
 */
const privacy = /* sql */ `
CREATE TABLE suppressions (
  kind text NOT NULL,
  subject text NOT NULL,
  reason text NOT NULL,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_by_email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, subject)
);
CREATE TABLE job_leases (
  name text PRIMARY KEY,
  owner text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX upstream_pages_fetched_idx ON upstream_pages (fetched_at);
CREATE INDEX upstream_cursors_created_idx ON upstream_cursors (created_at);
CREATE INDEX batch_items_finished_idx ON batch_items (finished_at) WHERE data IS NOT NULL;
CREATE INDEX events_upstream_age_idx ON events (fetched_at) WHERE source = 'upstream';
CREATE INDEX pin_users_upstream_age_idx ON pin_users (fetched_at) WHERE source = 'upstream';
CREATE INDEX profiles_upstream_age_idx ON profiles (fetched_at) WHERE source = 'upstream';
`;

// Key policies (docs/api.md "Keys"): what a key may call and from where (null: anything, anywhere),
// its automatic refill (refilled_period: the start of the last period it was refilled for;
// lib/keys/refill.sql) and its alert thresholds beyond the single one of 0003
// (lib/alerts/thresholds.sql).
const keyPolicies = /* sql */ `
ALTER TABLE api_keys ADD COLUMN operations text[];
ALTER TABLE api_keys ADD COLUMN allowed_addresses text[];
ALTER TABLE api_keys ADD COLUMN refill_credits bigint CHECK (refill_credits IS NULL OR refill_credits BETWEEN 1 AND 1000000000);
ALTER TABLE api_keys ADD COLUMN refill_interval text CHECK (refill_interval IN ('daily', 'monthly'));
ALTER TABLE api_keys ADD COLUMN refill_day_of_month integer CHECK (refill_day_of_month BETWEEN 1 AND 31);
ALTER TABLE api_keys ADD COLUMN refill_mode text CHECK (refill_mode IN ('top_up_to', 'increase_by'));
ALTER TABLE api_keys ADD COLUMN refilled_period date;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_refill_whole CHECK (
  (refill_credits IS NULL) = (refill_interval IS NULL) AND (refill_credits IS NULL) = (refill_mode IS NULL));
CREATE INDEX api_keys_refill_idx ON api_keys (refilled_period) WHERE refill_credits IS NOT NULL;

CREATE TABLE key_alert_thresholds (
  id bigserial PRIMARY KEY,
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  credits bigint CHECK (credits BETWEEN 1 AND 1000000000),
  percent integer CHECK (percent BETWEEN 1 AND 99),
  armed boolean NOT NULL DEFAULT true,
  CHECK ((credits IS NULL) <> (percent IS NULL))
);
CREATE INDEX key_alert_thresholds_key_idx ON key_alert_thresholds (key_id);
`;

const consoleLookups = /* sql */ `
-- The lookups a user ran in the console itself (not with an API key, not in a batch), by the
-- request id of their usage row: the console's "Recent lookups" lists only these.
CREATE TABLE console_lookups (
  request_id uuid PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_lookups_user_idx ON console_lookups (user_id, created_at DESC);
`;

const batchesBulk = /* sql */ `
-- Concurrent batches, and batches under /v1 (docs/decisions.md "Bulk, agents and keys").
-- credits_reserved: what the lookups in flight may still cost; a lookup starts only while
-- credits_spent + credits_reserved + its cost stays within the cap.
ALTER TABLE batches ADD COLUMN credits_reserved bigint NOT NULL DEFAULT 0 CHECK (credits_reserved >= 0);
ALTER TABLE batch_items ADD COLUMN reserved_credits integer NOT NULL DEFAULT 0;
-- Batches created under /v1: the key that pays and paces (sealed token), null for the console's.
ALTER TABLE batches ADD COLUMN key_id text REFERENCES api_keys(id);
ALTER TABLE batches ADD COLUMN token_sealed text;
ALTER TABLE batches ADD COLUMN webhook_url text;
ALTER TABLE batches ADD COLUMN max_age_s integer CHECK (max_age_s >= 0);
-- Counts the times the batch ended (done, stopped, canceled): one batch.finished event each.
ALTER TABLE batches ADD COLUMN ended_count integer NOT NULL DEFAULT 0;
CREATE INDEX batches_key_idx ON batches (key_id, created_at DESC, id DESC) WHERE key_id IS NOT NULL;
CREATE INDEX batches_ended_idx ON batches (updated_at) WHERE ended_count > 0;
ALTER TABLE webhook_deliveries ALTER COLUMN alert_id DROP NOT NULL;
ALTER TABLE webhook_deliveries ADD COLUMN batch_id text REFERENCES batches(id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD COLUMN batch_end integer;
CREATE UNIQUE INDEX webhook_deliveries_batch_idx ON webhook_deliveries (batch_id, batch_end) WHERE batch_id IS NOT NULL;
`;

const refusalAggregates = /* sql */ `
-- Free refusals beyond the first 10 per key, operation, status and second are kept as one
-- aggregate row (lib/credits/settle.sql record_usage): requests says how many requests a row
-- stands for (1 for every ordinary row), aggregate_second marks an aggregate and its second.
ALTER TABLE usage_events ADD COLUMN requests integer NOT NULL DEFAULT 1 CHECK (requests >= 1);
ALTER TABLE usage_events ADD COLUMN aggregate_second timestamptz;
CREATE UNIQUE INDEX usage_events_aggregate_idx ON usage_events (key_id, operation, status, aggregate_second)
  WHERE aggregate_second IS NOT NULL;
`;

// Where a request came in: /v1 with a key, the console, a batch, or an MCP tool call. Written with
// each usage row by the settle functions (record_usage in lib/credits/settle.sql); /v1 is the
// default.
const usageChannel = /* sql */ `
ALTER TABLE usage_events ADD COLUMN channel text NOT NULL DEFAULT 'api'
  CHECK (channel IN ('api', 'console', 'batch', 'mcp'));
`;

// Suppressions in the one spelling of their subject (lib/records/canonical-subject.ts): ids of
// digits without leading zeros, a URN's type in lower case (with its id of digits unpadded). Two
// rows naming one subject keep the older.
const canonicalSubjectSql = /* sql */ `CASE
  WHEN kind IN ('event', 'pin_user') AND subject ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(subject, '0'), ''), '0')
  WHEN kind = 'profile' AND subject ~* '^urn:li:[a-z_]+:[a-z0-9_-]+$' THEN
    'urn:li:' || lower(split_part(subject, ':', 3)) || ':' || CASE
      WHEN split_part(subject, ':', 4) ~ '^[0-9]+$' THEN COALESCE(NULLIF(ltrim(split_part(subject, ':', 4), '0'), ''), '0')
      ELSE split_part(subject, ':', 4) END
  ELSE subject END`;
const canonicalSubjects = /* sql */ `
DELETE FROM suppressions s USING (
  SELECT kind, subject, row_number() OVER (PARTITION BY kind, ${canonicalSubjectSql} ORDER BY created_at, subject) AS rank
  FROM suppressions
) r WHERE s.kind = r.kind AND s.subject = r.subject AND r.rank > 1;
UPDATE suppressions SET subject = ${canonicalSubjectSql} WHERE subject <> ${canonicalSubjectSql};
`;

// Who pays a key's automatic refill (lib/keys/refill.sql): refill_payer_id is the user whose credit
// allowance each refill is taken from, NULL for a refill an administrator or the operator's CLI
// granted. When the allowance cannot pay a period's refill, the refill stops: refill_stopped_at
// says when, refill_stopped_credits what could not be paid; setting the refill again re-arms it.
// Refills already set on an analyst's key are paid by its owner from now on.
const refillPayer = /* sql */ `
ALTER TABLE api_keys ADD COLUMN refill_payer_id text REFERENCES users(id);
ALTER TABLE api_keys ADD COLUMN refill_stopped_at timestamptz;
ALTER TABLE api_keys ADD COLUMN refill_stopped_credits bigint CHECK (refill_stopped_credits >= 0);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_refill_stop_whole CHECK (
  (refill_stopped_at IS NULL) = (refill_stopped_credits IS NULL) AND (refill_credits IS NOT NULL OR refill_stopped_at IS NULL));
UPDATE api_keys k SET refill_payer_id = k.owner_id
FROM users u
WHERE u.id = k.owner_id AND u.role <> 'admin' AND k.refill_credits IS NOT NULL;
`;

// A batch belongs to a user, or, when the API key that creates it belongs to nobody (an
// operator's key from the key CLI), to that key alone: user_id is then null and key_id says whose.
const batchKeyOwner = /* sql */ `
ALTER TABLE batches ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE batches ADD CONSTRAINT batches_owner_check CHECK (user_id IS NOT NULL OR key_id IS NOT NULL);
`;

export const migrations: Migration[] = [
  { id: "0001_init", sql: () => init },
  { id: "0002_accounts", sql: () => accounts },
  { id: "0003_metering", sql: () => metering },
  { id: "0004_upstream", sql: () => upstream },
  { id: "0005_usage", sql: () => usage },
  // The usable_keys view and set-based settle/void/sweep, replacing 0003's functions.
  { id: "0006_credit_policy", sql: () => creditPolicySql(), repeatable: true },
  { id: "0007_batches", sql: () => batches },
  { id: "0008_sessions", sql: () => sessions },
  { id: "0009_privacy", sql: () => privacy },
  { id: "0010_key_policies", sql: () => keyPolicies },
  { id: "0012_console_lookups", sql: () => consoleLookups },
  { id: "0013_batches_bulk", sql: () => batchesBulk },
  { id: "0014_refusal_aggregates", sql: () => refusalAggregates },
  { id: "0015_usage_channel", sql: () => usageChannel },
  { id: "0016_refill_payer", sql: () => refillPayer },
  // The refill and threshold functions (lib/db/policy.ts KEY_POLICY_FILES) read columns of 0010
  // and 0016, so they are applied after both. The id is the one they were first recorded under:
  // a database migrated before 0016 existed knows it, and applies it again because its text
  // changed. A new migration whose columns these functions read goes above this line.
  { id: "0011_key_policies_sql", sql: () => keyPolicySql(), repeatable: true },
  { id: "0017_canonical_subjects", sql: () => canonicalSubjects },
  { id: "0018_batch_key_owner", sql: () => batchKeyOwner },
];
