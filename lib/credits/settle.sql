-- Signatures earlier versions of this file created (a CREATE OR REPLACE with other arguments
-- would add an overload beside them): usage rows now get their channel as they are written.
DROP FUNCTION IF EXISTS label_channels(json);
DROP FUNCTION IF EXISTS record_usage(uuid[], text[], text[], integer[], integer[], integer[], text[], timestamptz[], text[]);

-- record_usage(...): writes the usage rows of settled requests, one per request, in the order
-- given (so ids follow it) — except free refusals (402, 403 and 429, charged nothing): beyond the
-- first 10 per key, operation, status and second, counting the rows already written for that
-- second, they are folded into one aggregate row per key, operation, status and second, whose
-- `requests` counts them (docs/decisions.md "Isolation"). It keeps the first folded request's id,
-- parameters, reason, channel and time, and the slowest latency. p_channel says where each
-- request came in ('api' for /v1, 'console', 'batch', 'mcp'): written with the row, never after. Callers hold the keys' locks, so the
-- count of rows already written is exact. The daily rollup is the callers' job: every request is
-- added to it, folded or not, so totals stay exact.
CREATE OR REPLACE FUNCTION record_usage(
  p_request uuid[], p_key text[], p_operation text[], p_status integer[], p_charged integer[], p_latency integer[],
  p_params text[], p_created timestamptz[], p_reason text[], p_channel text[]
) RETURNS void LANGUAGE plpgsql AS $r$
DECLARE
  places bigint[];
BEGIN
  IF NOT (p_status && ARRAY[402, 403, 429]) THEN
    INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at, reason, channel)
      SELECT t.request_id, t.key_id, t.operation, t.status, t.charged, t.latency_ms, t.params_summary, t.created_at, t.reason, t.channel
      FROM unnest(p_request, p_key, p_operation, p_status, p_charged, p_latency, p_params, p_created, p_reason, p_channel)
        WITH ORDINALITY AS t(request_id, key_id, operation, status, charged, latency_ms, params_summary, created_at, reason, channel, pos)
      ORDER BY t.pos;
    RETURN;
  END IF;

  -- Each request's place among the free refusals of its key, operation, status and second,
  -- after the single rows already written for that second (0: not a free refusal).
  WITH t AS (
    SELECT u.pos, u.key_id, u.operation, u.status, date_trunc('second', u.created_at) AS second,
           u.status IN (402, 403, 429) AND u.charged = 0 AS free_refusal
    FROM unnest(p_key, p_operation, p_status, p_charged, p_created) WITH ORDINALITY AS u(key_id, operation, status, charged, created_at, pos)
  ), w AS (
    -- Per second, one probe of the index: at most the 10 single rows that matter.
    SELECT g.key_id, g.operation, g.status, g.second,
           (SELECT count(*) FROM (
              SELECT 1 FROM usage_events e
              WHERE e.key_id = g.key_id AND e.status = g.status AND e.status <> 200 AND e.operation = g.operation
                AND e.created_at >= g.second AND e.created_at < g.second + interval '1 second' AND e.aggregate_second IS NULL
              LIMIT 10) f) AS written
    FROM (SELECT DISTINCT t.key_id, t.operation, t.status, t.second FROM t WHERE t.free_refusal) g
  )
  SELECT array_agg(n.place ORDER BY n.pos) INTO places
  FROM (
    SELECT t.pos,
           CASE WHEN t.free_refusal
                THEN w.written + row_number() OVER (PARTITION BY t.free_refusal, t.key_id, t.operation, t.status, t.second ORDER BY t.pos)
                ELSE 0 END AS place
    FROM t LEFT JOIN w ON t.free_refusal AND w.key_id = t.key_id AND w.operation = t.operation AND w.status = t.status AND w.second = t.second
  ) n;

  INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at, reason, channel)
    SELECT t.request_id, t.key_id, t.operation, t.status, t.charged, t.latency_ms, t.params_summary, t.created_at, t.reason, t.channel
    FROM unnest(p_request, p_key, p_operation, p_status, p_charged, p_latency, p_params, p_created, p_reason, p_channel, places)
      WITH ORDINALITY AS t(request_id, key_id, operation, status, charged, latency_ms, params_summary, created_at, reason, channel, place, pos)
    WHERE t.place <= 10
    ORDER BY t.pos;

  INSERT INTO usage_events AS e (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at,
                                 reason, channel, requests, aggregate_second)
    SELECT (array_agg(t.request_id ORDER BY t.pos))[1], t.key_id, t.operation, t.status, 0, max(t.latency_ms),
           (array_agg(t.params_summary ORDER BY t.pos))[1], min(t.created_at), (array_agg(t.reason ORDER BY t.pos))[1],
           (array_agg(t.channel ORDER BY t.pos))[1], count(*), date_trunc('second', t.created_at)
    FROM unnest(p_request, p_key, p_operation, p_status, p_latency, p_params, p_created, p_reason, p_channel, places)
      WITH ORDINALITY AS t(request_id, key_id, operation, status, latency_ms, params_summary, created_at, reason, channel, place, pos)
    WHERE t.place > 10
    GROUP BY t.key_id, t.operation, t.status, date_trunc('second', t.created_at)
    ORDER BY min(t.pos)
  ON CONFLICT (key_id, operation, status, aggregate_second) WHERE aggregate_second IS NOT NULL
  DO UPDATE SET requests = e.requests + EXCLUDED.requests, latency_ms = GREATEST(e.latency_ms, EXCLUDED.latency_ms);
END
$r$;

-- credit_back(keys, credits): gives charged credits back — to the key's own balance, or to the
-- pool of a key that draws from one (api_keys.pool_id). The caller holds the keys' locks; the pools
-- are locked here, after them, in id order (the order settlement takes them in).
CREATE OR REPLACE FUNCTION credit_back(p_key text[], p_credits integer[]) RETURNS void LANGUAGE plpgsql AS $c$
BEGIN
  PERFORM 1 FROM workspaces w WHERE w.id IN (SELECT k.pool_id FROM api_keys k WHERE k.id = ANY(p_key)) ORDER BY w.id FOR UPDATE;
  UPDATE api_keys k SET credits_remaining = k.credits_remaining + r.credits
    FROM (SELECT t.key_id, sum(t.charged) AS credits FROM unnest(p_key, p_credits) AS t(key_id, charged) GROUP BY t.key_id) r
    WHERE k.id = r.key_id AND r.credits > 0 AND k.pool_id IS NULL;
  UPDATE workspaces w SET pool_credits = w.pool_credits + r.credits
    FROM (SELECT k.pool_id, sum(t.charged) AS credits FROM unnest(p_key, p_credits) AS t(key_id, charged)
          JOIN api_keys k ON k.id = t.key_id WHERE k.pool_id IS NOT NULL GROUP BY k.pool_id) r
    WHERE w.id = r.pool_id AND r.credits > 0;
END
$c$;

-- lock_for_settlement(keys): the rows a settlement decides on, locked in the one order every
-- writer of credits takes them: the keys by id, then the pools they draw from by id, then the
-- members whose monthly budget bounds a pooled key, by workspace and user.
CREATE OR REPLACE FUNCTION lock_for_settlement(p_keys text[]) RETURNS void LANGUAGE plpgsql AS $l$
BEGIN
  PERFORM 1 FROM api_keys kk WHERE kk.id = ANY(p_keys) ORDER BY kk.id FOR UPDATE;
  PERFORM 1 FROM workspaces w WHERE w.id IN (SELECT kk.pool_id FROM api_keys kk WHERE kk.id = ANY(p_keys)) ORDER BY w.id FOR UPDATE;
  PERFORM 1 FROM workspace_members m
    WHERE m.monthly_budget_credits IS NOT NULL
      AND (m.workspace_id, m.user_id) IN (SELECT kk.pool_id, kk.owner_id FROM api_keys kk WHERE kk.id = ANY(p_keys) AND kk.pool_id IS NOT NULL)
    ORDER BY m.workspace_id, m.user_id FOR UPDATE;
END
$l$;

-- settle_requests_in_order(batch): settles a batch of authenticated requests in one call and one
-- transaction (group commit; lib/credits/settle.ts sends the batch).
--
-- batch: a JSON array of {ord, request_id, key_id, operation, cost, outcome, final_status,
-- latency_ms, params_summary, created_at, deadline}. outcome is what the lookup ended with:
--   'found' | 'not_found' | '400' | '429' | '500' — a finished request;
--   'reserve' — charge now, usage row pending (status 102) until 'commit' or 'refund';
--   'commit'  — the reserved lookup succeeded (200);
--   'refund'  — the reserved lookup failed with final_status: its credits go back.
-- Returns one row per request: the status it answers, credits charged, credits remaining.
--
-- The policy, per request, in arrival order (ord) per key:
--   * a request id settled before is reported as recorded and changes nothing (idempotent);
--   * a request that reaches the database after its caller's deadline is recorded as the
--     uncharged 500 its caller answered (the client is never charged for an answer it did not get);
--   * a lookup is charged its cost only if the key is usable (usable_keys), has the credits (its
--     own, or its pool's: api_keys.pool_id), stays within its daily cap, its own monthly or total
--     cap, and its member's monthly budget in the workspace; otherwise it answers 401 (no usage
--     row), or 402 with the reason ('credits' | 'daily_cap' | 'cap' | 'budget') — and 402 comes
--     before 404, so an unknown record costs nothing;
--   * every request except a 401 gets exactly one usage row, in the same transaction as its
--     charge (free refusals beyond 10 per key, operation, status and second share one aggregate
--     row: record_usage), and is counted in the daily rollup (a reservation when it is finalised);
--   * a charge that crosses the key's low-credit threshold, or reaches zero, records one alert.
--
-- How: the reservations the batch finalises and its keys are locked in a fixed order; the
-- decisions are made in memory, request by request, exactly as the rules above read; and the
-- batch is written set-based — one INSERT for the usage rows, one UPDATE per key,
-- one upsert per rollup row — instead of a statement (and a new row version of the same key)
-- per request.
CREATE OR REPLACE FUNCTION settle_requests_in_order(batch json)
RETURNS TABLE (r_request_id uuid, r_status integer, r_charged integer, r_remaining bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  item record;
  -- The batch, one element per request, in the order decided: by key, then arrival (ord).
  b_request uuid[] := '{}'; b_key text[] := '{}'; b_operation text[] := '{}'; b_latency integer[] := '{}';
  b_params text[] := '{}'; b_created timestamptz[] := '{}'; b_channel text[] := '{}';
  -- The decisions, aligned with the batch. d_write: 'insert' a usage row, 'finalise' the
  -- reservation's row, or 'none'.
  d_status integer[] := '{}'; d_charged integer[] := '{}'; d_remaining bigint[] := '{}';
  d_reason text[] := '{}'; d_write text[] := '{}';
  -- Per key: the credit change and the new last_used_at, written once per key at the end.
  k_ids text[] := '{}'; k_delta bigint[] := '{}'; k_last_used timestamptz[] := '{}';
  -- Per pool: its credits as the batch leaves them, and the change written once at the end.
  p_ids text[] := '{}'; p_remaining bigint[] := '{}'; p_delta bigint[] := '{}';
  -- Per member with a monthly budget ('<workspace> <user>'): what they spent this month.
  m_ids text[] := '{}'; m_spent bigint[] := '{}';
  cur_pool text; pidx integer; pool_credits_now bigint; pool_granted_now bigint; t_percent integer; k_granted bigint;
  spend_cap bigint; spend_from date; cap_spent bigint;
  member text; midx integer; budget bigint; budget_spent bigint; k_owner text;
  -- Alerts, in the order the charges crossed.
  a_key text[] := '{}'; a_kind text[] := '{}'; a_threshold bigint[] := '{}'; a_remaining bigint[] := '{}';
  -- The state of the key being decided.
  cur_key text := NULL; key_found boolean; usable boolean; remaining bigint; cap bigint;
  spent bigint; threshold bigint; delta bigint; last_used timestamptz;
  today date := (now() AT TIME ZONE 'UTC')::date;
  i integer := 0; first integer; finalising boolean := false;
  st integer; charged integer; why text; write text;
BEGIN
  -- Locks, always in this order (sweep and void take them in the same one): the reservations
  -- this batch finalises, then its keys by id (taken as the loop reaches each key, in key order).
  -- A key row stays locked until commit, so the decisions below, made on the figures read with
  -- the lock, are exactly what one conditional UPDATE per request would have decided.
  PERFORM 1 FROM usage_events u
    WHERE u.request_id IN (SELECT x.request_id FROM json_to_recordset(batch) AS x(request_id uuid, outcome text)
                           WHERE x.outcome IN ('commit', 'refund'))
      AND u.status = 102
    ORDER BY u.id FOR UPDATE;
  PERFORM lock_for_settlement(ARRAY(SELECT DISTINCT x.key_id FROM json_to_recordset(batch) AS x(key_id text)));

  FOR item IN
    SELECT x.*, u.status AS prior_status, u.credits_charged AS prior_charged
    FROM json_to_recordset(batch) AS x(
      ord integer, request_id uuid, key_id text, operation text, cost integer, outcome text,
      final_status integer, latency_ms integer, params_summary text, created_at timestamptz, deadline timestamptz, channel text)
    LEFT JOIN usage_events u ON u.request_id = x.request_id
    ORDER BY x.key_id, x.ord
  LOOP
    i := i + 1;
    b_request := array_append(b_request, item.request_id); b_key := array_append(b_key, item.key_id);
    b_operation := array_append(b_operation, item.operation); b_latency := array_append(b_latency, item.latency_ms);
    b_params := array_append(b_params, item.params_summary); b_created := array_append(b_created, item.created_at);
    b_channel := array_append(b_channel, COALESCE(item.channel, 'api'));

    IF item.key_id IS DISTINCT FROM cur_key THEN
      IF cur_key IS NOT NULL THEN
        IF cur_pool IS NULL THEN
          k_delta := array_append(k_delta, delta);
        ELSE
          -- A pooled key's credits are its pool's: the pool's next key goes on from here.
          k_delta := array_append(k_delta, 0::bigint);
          p_remaining[pidx] := remaining; p_delta[pidx] := p_delta[pidx] + delta;
        END IF;
        IF midx IS NOT NULL THEN m_spent[midx] := budget_spent; END IF;
        k_ids := array_append(k_ids, cur_key); k_last_used := array_append(k_last_used, last_used);
      END IF;
      cur_key := item.key_id;
      delta := 0;
      last_used := NULL;
      SELECT kk.credits_remaining, kk.daily_credit_cap, EXISTS (SELECT 1 FROM usable_keys uk WHERE uk.id = kk.id),
             kk.alert_threshold_credits, kk.alert_threshold_percent, kk.credits_granted, kk.pool_id, w.pool_credits,
             w.pool_granted, kk.spend_cap_credits, spend_cap_from(kk.spend_cap_period), kk.owner_id
        INTO remaining, cap, usable, threshold, t_percent, k_granted, cur_pool, pool_credits_now,
             pool_granted_now, spend_cap, spend_from, k_owner
        FROM api_keys kk LEFT JOIN workspaces w ON w.id = kk.pool_id WHERE kk.id = cur_key;
      key_found := FOUND;
      IF NOT key_found THEN remaining := 0; usable := false; cur_pool := NULL; spend_cap := NULL; END IF;
      spent := CASE WHEN cap IS NULL THEN 0 ELSE credits_spent_today(cur_key) END;
      cap_spent := CASE WHEN spend_cap IS NULL THEN 0 ELSE credits_spent_since(cur_key, spend_from) END;
      pidx := NULL; midx := NULL; budget := NULL; budget_spent := 0;
      IF cur_pool IS NOT NULL THEN
        pidx := array_position(p_ids, cur_pool);
        IF pidx IS NULL THEN
          p_ids := array_append(p_ids, cur_pool); p_remaining := array_append(p_remaining, pool_credits_now);
          p_delta := array_append(p_delta, 0::bigint); pidx := cardinality(p_ids);
        END IF;
        remaining := p_remaining[pidx];
        SELECT m.monthly_budget_credits INTO budget FROM workspace_members m WHERE m.workspace_id = cur_pool AND m.user_id = k_owner;
        IF budget IS NOT NULL THEN
          member := cur_pool || ' ' || k_owner;
          midx := array_position(m_ids, member);
          IF midx IS NULL THEN
            m_ids := array_append(m_ids, member);
            m_spent := array_append(m_spent, member_credits_spent_this_month(cur_pool, k_owner));
            midx := cardinality(m_ids);
          END IF;
          budget_spent := m_spent[midx];
        END IF;
      END IF;
      -- The low-credit threshold in credits: a share of what the key, or its pool, was granted.
      IF threshold IS NULL AND t_percent IS NOT NULL THEN
        threshold := ceil(CASE WHEN cur_pool IS NULL THEN k_granted ELSE pool_granted_now END * t_percent / 100.0)::bigint;
      END IF;
    END IF;

    st := NULL; charged := 0; why := ''; write := 'none';
    first := array_position(b_request, item.request_id);
    IF first < i THEN
      -- The same request id twice in one batch: the second is answered as the first.
      st := d_status[first]; charged := d_charged[first];
    ELSIF item.outcome NOT IN ('commit', 'refund') AND item.prior_status IS NOT NULL THEN
      -- Settled before (a retry after a lost answer): report what was recorded.
      st := CASE WHEN item.prior_status = 102 THEN 200 ELSE item.prior_status END;
      charged := item.prior_charged;
    ELSIF item.outcome NOT IN ('commit', 'refund') AND item.deadline IS NOT NULL AND clock_timestamp() > item.deadline THEN
      -- Arrived after the caller gave up and answered 500 (a database outage): record that, uncharged.
      st := 500; why := 'timeout'; write := 'insert';
    ELSIF item.outcome IN ('commit', 'refund') THEN
      IF item.prior_status IS DISTINCT FROM 102 THEN
        -- Already finalised (e.g. by the sweeper): change nothing.
        st := 500;
      ELSIF item.outcome = 'commit' THEN
        st := 200; charged := item.prior_charged; write := 'finalise'; finalising := true;
        -- The reservation stops counting as pending and counts in its day's rollup instead.
        spent := spent - item.prior_charged
          + CASE WHEN (item.created_at AT TIME ZONE 'UTC')::date = today THEN item.prior_charged ELSE 0 END;
        cap_spent := cap_spent - item.prior_charged
          + CASE WHEN spend_from IS NULL OR (item.created_at AT TIME ZONE 'UTC')::date >= spend_from THEN item.prior_charged ELSE 0 END;
        budget_spent := budget_spent - item.prior_charged
          + CASE WHEN (item.created_at AT TIME ZONE 'UTC')::date >= spend_cap_from('month') THEN item.prior_charged ELSE 0 END;
      ELSE
        st := item.final_status; why := 'refunded'; write := 'finalise'; finalising := true;
        remaining := remaining + item.prior_charged; delta := delta + item.prior_charged;
        spent := spent - item.prior_charged; cap_spent := cap_spent - item.prior_charged; budget_spent := budget_spent - item.prior_charged;
      END IF;
    ELSE
      IF key_found THEN last_used := item.created_at; END IF;
      IF item.outcome NOT IN ('found', 'not_found', 'reserve') THEN
        st := item.outcome::integer;
      ELSIF NOT usable THEN
        st := 401;
      ELSIF remaining < item.cost THEN
        st := 402; why := 'credits';
      ELSIF cap IS NOT NULL AND spent + item.cost > cap THEN
        st := 402; why := 'daily_cap';
      ELSIF spend_cap IS NOT NULL AND cap_spent + item.cost > spend_cap THEN
        st := 402; why := 'cap';
      ELSIF budget IS NOT NULL AND budget_spent + item.cost > budget THEN
        st := 402; why := 'budget';
      ELSIF item.outcome = 'not_found' THEN
        st := 404;
      ELSE
        st := CASE WHEN item.outcome = 'reserve' THEN 102 ELSE 200 END;
        charged := item.cost;
        remaining := remaining - item.cost; delta := delta - item.cost;
        spent := spent + CASE WHEN st = 102 OR (item.created_at AT TIME ZONE 'UTC')::date = today THEN item.cost ELSE 0 END;
        cap_spent := cap_spent + item.cost; budget_spent := budget_spent + item.cost;
        IF threshold IS NOT NULL AND remaining + item.cost > threshold AND remaining <= threshold AND remaining > 0 THEN
          a_key := array_append(a_key, cur_key); a_kind := array_append(a_kind, 'threshold');
          a_threshold := array_append(a_threshold, threshold); a_remaining := array_append(a_remaining, remaining);
        END IF;
        IF remaining = 0 AND item.cost > 0 THEN
          a_key := array_append(a_key, cur_key); a_kind := array_append(a_kind, 'zero');
          a_threshold := array_append(a_threshold, threshold); a_remaining := array_append(a_remaining, 0::bigint);
        END IF;
      END IF;
      IF st <> 401 THEN write := 'insert'; END IF;
    END IF;

    d_status := array_append(d_status, st); d_charged := array_append(d_charged, charged);
    d_remaining := array_append(d_remaining, remaining); d_reason := array_append(d_reason, why);
    d_write := array_append(d_write, write);
  END LOOP;
  IF i = 0 THEN RETURN; END IF;
  IF cur_pool IS NULL THEN
    k_delta := array_append(k_delta, delta);
  ELSE
    k_delta := array_append(k_delta, 0::bigint);
    p_remaining[pidx] := remaining; p_delta[pidx] := p_delta[pidx] + delta;
  END IF;
  k_ids := array_append(k_ids, cur_key); k_last_used := array_append(k_last_used, last_used);

  -- The writes, set-based. Usage rows in the batch's order, so ids follow it as before.
  PERFORM record_usage(array_agg(t.request_id ORDER BY t.pos), array_agg(t.key_id ORDER BY t.pos), array_agg(t.operation ORDER BY t.pos),
                       array_agg(t.status ORDER BY t.pos), array_agg(t.charged ORDER BY t.pos), array_agg(t.latency_ms ORDER BY t.pos),
                       array_agg(t.params_summary ORDER BY t.pos), array_agg(t.created_at ORDER BY t.pos), array_agg(t.reason ORDER BY t.pos),
                       array_agg(t.channel ORDER BY t.pos))
    FROM unnest(b_request, b_key, b_operation, d_status, d_charged, b_latency, b_params, b_created, d_reason, d_write, b_channel)
      WITH ORDINALITY AS t(request_id, key_id, operation, status, charged, latency_ms, params_summary, created_at, reason, write, channel, pos)
    WHERE t.write = 'insert'
    HAVING count(*) > 0;

  IF finalising THEN
    UPDATE usage_events u
    SET status = t.status, credits_charged = t.charged, latency_ms = t.latency_ms,
        reason = CASE WHEN t.reason = '' THEN u.reason ELSE t.reason END
    FROM unnest(b_request, d_status, d_charged, b_latency, d_reason, d_write) AS t(request_id, status, charged, latency_ms, reason, write)
    WHERE t.write = 'finalise' AND u.request_id = t.request_id AND u.status = 102;
  END IF;

  UPDATE api_keys kk
    SET credits_remaining = kk.credits_remaining + t.delta, last_used_at = COALESCE(t.last_used, kk.last_used_at)
    FROM unnest(k_ids, k_delta, k_last_used) AS t(id, delta, last_used)
    WHERE kk.id = t.id AND (t.delta <> 0 OR t.last_used IS NOT NULL);

  IF cardinality(p_ids) > 0 THEN
    UPDATE workspaces w SET pool_credits = w.pool_credits + t.delta
      FROM unnest(p_ids, p_delta) AS t(id, delta)
      WHERE w.id = t.id AND t.delta <> 0;
  END IF;

  PERFORM add_usage_daily(array_agg(t.key_id), array_agg(t.created_at), array_agg(t.operation), array_agg(t.status),
                          array_agg(t.charged), array_agg(t.latency_ms))
    FROM unnest(b_key, b_created, b_operation, d_status, d_charged, b_latency, d_write)
      AS t(key_id, created_at, operation, status, charged, latency_ms, write)
    WHERE t.write = 'finalise' OR (t.write = 'insert' AND t.status <> 102)
    HAVING count(*) > 0;

  IF array_length(a_key, 1) > 0 THEN
    INSERT INTO key_alerts (key_id, kind, threshold_credits, credits_remaining)
      SELECT t.key_id, t.kind, t.threshold, t.remaining
      FROM unnest(a_key, a_kind, a_threshold, a_remaining) WITH ORDINALITY AS t(key_id, kind, threshold, remaining, pos)
      ORDER BY t.pos;
  END IF;

  RETURN QUERY
    SELECT t.request_id, CASE WHEN t.status = 102 THEN 200 ELSE t.status END, t.charged, t.remaining
    FROM unnest(b_request, d_status, d_charged, d_remaining) WITH ORDINALITY AS t(request_id, status, charged, remaining, pos)
    WHERE array_position(b_request, t.request_id) = t.pos;
END
$fn$;

-- settle_batch_is_plain(batch): whether settle_requests_in_order could decide nothing for this
-- batch but "found: charged its cost; not_found: 404; 400, 429, 500: that status, uncharged" —
-- true when the batch holds only finished lookups (no reservation to make or finalise), no request
-- id twice or settled before, none past its deadline, and every key is usable and has the credits
-- (and the room under its daily cap) for every lookup of the batch while staying above its alert
-- threshold and above zero. Called with the keys locked, the answer holds until commit.
CREATE OR REPLACE FUNCTION settle_batch_is_plain(batch json) RETURNS boolean LANGUAGE sql STABLE AS $p$
  WITH x AS MATERIALIZED (
    SELECT * FROM json_to_recordset(batch) AS x(request_id uuid, key_id text, cost integer, outcome text, deadline timestamptz)
  ), needs AS (
    SELECT x.key_id, COALESCE(sum(x.cost) FILTER (WHERE x.outcome IN ('found', 'not_found')), 0) AS needed FROM x GROUP BY x.key_id
  ), pool_needs AS (
    -- A pool's keys draw on it together: what they need in all, against its lowest alert line.
    SELECT kk.pool_id, sum(n.needed) AS needed,
           max(GREATEST(0, COALESCE(kk.alert_threshold_credits,
             CASE WHEN kk.alert_threshold_percent IS NULL THEN NULL
                  ELSE ceil(w.pool_granted * kk.alert_threshold_percent / 100.0)::bigint END))) AS line
    FROM needs n JOIN api_keys kk ON kk.id = n.key_id JOIN workspaces w ON w.id = kk.pool_id
    GROUP BY kk.pool_id
  )
  SELECT COALESCE((
      SELECT bool_and(x.outcome IN ('found', 'not_found', '400', '429', '500'))
             AND count(DISTINCT x.request_id) = count(*)
             AND clock_timestamp() <= min(x.deadline)
      FROM x), false)
    AND NOT EXISTS (SELECT 1 FROM x JOIN usage_events u ON u.request_id = x.request_id)
    AND NOT EXISTS (
      SELECT 1
      FROM needs n LEFT JOIN api_keys kk ON kk.id = n.key_id
      WHERE kk.id IS NULL
         OR NOT EXISTS (SELECT 1 FROM usable_keys uk WHERE uk.id = kk.id)
         OR (kk.pool_id IS NULL AND kk.credits_remaining - n.needed <= GREATEST(0, COALESCE(kk.alert_threshold_credits,
              CASE WHEN kk.alert_threshold_percent IS NULL THEN NULL
                   ELSE ceil(kk.credits_granted * kk.alert_threshold_percent / 100.0)::bigint END)))
         OR (kk.daily_credit_cap IS NOT NULL AND credits_spent_today(kk.id) + n.needed > kk.daily_credit_cap)
         -- A key's own cap or its member's budget: decided request by request.
         OR kk.spend_cap_credits IS NOT NULL
         OR (kk.pool_id IS NOT NULL AND EXISTS (
               SELECT 1 FROM workspace_members m
               WHERE m.workspace_id = kk.pool_id AND m.user_id = kk.owner_id AND m.monthly_budget_credits IS NOT NULL)))
    AND NOT EXISTS (SELECT 1 FROM pool_needs p JOIN workspaces w ON w.id = p.pool_id WHERE w.pool_credits - p.needed <= p.line)
$p$;

-- settle_requests(batch): what lib/credits/settle.ts calls. A plain batch (settle_batch_is_plain:
-- most are) gets exactly the decisions settle_requests_in_order would make, written in a few
-- set-based statements; every other batch is settled by settle_requests_in_order.
-- lib/credits/settle.test.ts settles random batches both ways and compares everything written.
CREATE OR REPLACE FUNCTION settle_requests(batch json)
RETURNS TABLE (r_request_id uuid, r_status integer, r_charged integer, r_remaining bigint)
LANGUAGE plpgsql AS $fn$
BEGIN
  -- A batch that finalises reservations is never plain, and must lock them before its keys.
  IF EXISTS (SELECT 1 FROM json_to_recordset(batch) AS x(outcome text) WHERE x.outcome IN ('commit', 'refund')) THEN
    RETURN QUERY SELECT * FROM settle_requests_in_order(batch);
    RETURN;
  END IF;
  -- The keys, their pools and budgets, locked in the order settle_requests_in_order locks them.
  PERFORM lock_for_settlement(ARRAY(SELECT DISTINCT x.key_id FROM json_to_recordset(batch) AS x(key_id text)));
  IF NOT settle_batch_is_plain(batch) THEN
    RETURN QUERY SELECT * FROM settle_requests_in_order(batch);
    RETURN;
  END IF;

  RETURN QUERY
  WITH decided AS (
    SELECT x.ord, x.request_id, x.key_id, x.operation, x.latency_ms, x.params_summary, x.created_at, COALESCE(x.channel, 'api') AS channel,
           CASE x.outcome WHEN 'found' THEN 200 WHEN 'not_found' THEN 404 ELSE x.outcome::integer END AS status,
           CASE WHEN x.outcome = 'found' THEN x.cost ELSE 0 END AS charged
    FROM json_to_recordset(batch) AS x(
      ord integer, request_id uuid, key_id text, operation text, cost integer, outcome text,
      latency_ms integer, params_summary text, created_at timestamptz, channel text)
  ), settled AS (
    -- What each request leaves on its key, or on its key's pool (whose keys the in-order decisions
    -- take one after another, by key id), as the in-order decisions report it.
    SELECT d.*, kk.pool_id,
           COALESCE(w.pool_credits, kk.credits_remaining)
             - sum(d.charged) OVER (PARTITION BY kk.pool_id, CASE WHEN kk.pool_id IS NULL THEN d.key_id END
                                    ORDER BY d.key_id, d.ord ROWS UNBOUNDED PRECEDING) AS remaining
    FROM decided d JOIN api_keys kk ON kk.id = d.key_id LEFT JOIN workspaces w ON w.id = kk.pool_id
  ), recorded AS (
    SELECT record_usage(array_agg(s.request_id ORDER BY s.key_id, s.ord), array_agg(s.key_id ORDER BY s.key_id, s.ord),
                        array_agg(s.operation ORDER BY s.key_id, s.ord), array_agg(s.status ORDER BY s.key_id, s.ord),
                        array_agg(s.charged ORDER BY s.key_id, s.ord), array_agg(s.latency_ms ORDER BY s.key_id, s.ord),
                        array_agg(s.params_summary ORDER BY s.key_id, s.ord), array_agg(s.created_at ORDER BY s.key_id, s.ord),
                        array_agg(''::text ORDER BY s.key_id, s.ord), array_agg(s.channel ORDER BY s.key_id, s.ord))
    FROM settled s
  ), charged AS (
    UPDATE api_keys kk
      SET credits_remaining = kk.credits_remaining - CASE WHEN kk.pool_id IS NULL THEN t.spent ELSE 0 END, last_used_at = t.last_used
      FROM (SELECT s.key_id, sum(s.charged) AS spent, (array_agg(s.created_at ORDER BY s.ord DESC))[1] AS last_used
            FROM settled s GROUP BY s.key_id) t
      WHERE kk.id = t.key_id
  ), pooled AS (
    UPDATE workspaces w SET pool_credits = w.pool_credits - t.spent
      FROM (SELECT s.pool_id, sum(s.charged) AS spent FROM settled s WHERE s.pool_id IS NOT NULL GROUP BY s.pool_id) t
      WHERE w.id = t.pool_id AND t.spent <> 0
  ), counted AS (
    SELECT add_usage_daily(array_agg(s.key_id ORDER BY s.key_id, s.ord), array_agg(s.created_at ORDER BY s.key_id, s.ord),
                           array_agg(s.operation ORDER BY s.key_id, s.ord), array_agg(s.status ORDER BY s.key_id, s.ord),
                           array_agg(s.charged ORDER BY s.key_id, s.ord), array_agg(s.latency_ms ORDER BY s.key_id, s.ord))
    FROM settled s
  )
  SELECT s.request_id, s.status, s.charged, s.remaining FROM settled s, counted, recorded ORDER BY s.key_id, s.ord;
END
$fn$;
