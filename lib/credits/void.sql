-- undo_charges(request_ids, from_statuses, new_status, new_reason): the usage rows of these
-- requests (those with a status in from_statuses; NULL: any) are given back whatever they were
-- charged — a pending reservation too — and recorded as new_status with 0 credits and new_reason;
-- the daily rollup moves them from their old status (a pending reservation was never in one) to
-- new_status. Aggregate rows of folded refusals are left alone (they cost nothing). Returns how
-- many rows changed; running it twice changes nothing. Locks: usage rows, then keys by id (as
-- settlement).
CREATE OR REPLACE FUNCTION undo_charges(request_ids uuid[], from_statuses integer[], new_status integer, new_reason text)
RETURNS integer LANGUAGE plpgsql AS $u$
DECLARE
  l_id bigint[]; l_key text[]; l_operation text[]; l_status integer[]; l_charged integer[];
  l_created timestamptz[]; l_latency integer[];
BEGIN
  SELECT array_agg(l.id ORDER BY l.id), array_agg(l.key_id ORDER BY l.id), array_agg(l.operation ORDER BY l.id),
         array_agg(l.status ORDER BY l.id), array_agg(l.credits_charged ORDER BY l.id),
         array_agg(l.created_at ORDER BY l.id), array_agg(l.latency_ms ORDER BY l.id)
    INTO l_id, l_key, l_operation, l_status, l_charged, l_created, l_latency
    FROM (SELECT u.id, u.key_id, u.operation, u.status, u.credits_charged, u.created_at, u.latency_ms FROM usage_events u
          WHERE u.request_id = ANY(request_ids) AND (from_statuses IS NULL OR u.status = ANY(from_statuses))
            AND u.status <> new_status AND u.aggregate_second IS NULL
          ORDER BY u.id FOR UPDATE) l;
  IF l_id IS NULL THEN RETURN 0; END IF;

  PERFORM 1 FROM api_keys k WHERE k.id = ANY(l_key) ORDER BY k.id FOR UPDATE;
  UPDATE usage_events SET status = new_status, credits_charged = 0, reason = new_reason WHERE id = ANY(l_id);
  -- Back to the key's own balance, or to its pool (credit_back, lib/credits/settle.sql).
  PERFORM credit_back(l_key, l_charged);
  PERFORM add_usage_daily(array_agg(t.key_id), array_agg(t.created_at), array_agg(t.operation), array_agg(t.status),
                          array_agg(t.charged), array_agg(t.latency_ms), -1)
    FROM unnest(l_key, l_created, l_operation, l_status, l_charged, l_latency) AS t(key_id, created_at, operation, status, charged, latency_ms)
    WHERE t.status <> 102
    HAVING count(*) > 0;
  PERFORM add_usage_daily(l_key, l_created, l_operation, array_fill(new_status, ARRAY[cardinality(l_id)]),
                          array_fill(0, ARRAY[cardinality(l_id)]), l_latency);
  RETURN cardinality(l_id);
END
$u$;

-- void_settlements(request_ids): requests whose answer was lost — the caller timed out and
-- answered 500, but its settlement committed — are refunded and recorded as the 500 the client
-- saw (reason 'answer_lost'); reservations still pending too. A charged 200 is taken out of its
-- day's rollup again. Returns how many were voided; voiding twice changes nothing.
CREATE OR REPLACE FUNCTION void_settlements(request_ids uuid[]) RETURNS integer LANGUAGE sql AS $v$
  SELECT undo_charges(request_ids, ARRAY[200, 102], 500, 'answer_lost')
$v$;

-- release_unanswered(request_ids): requests whose client closed the connection before their
-- answer was written (docs/decisions.md "Isolation"): whatever they were charged goes back — a pending
-- reservation too — and each usage row becomes 499 (client closed request), 0 credits, reason
-- 'client_closed', in the rollup too. Returns how many were released; releasing twice changes nothing.
CREATE OR REPLACE FUNCTION release_unanswered(request_ids uuid[]) RETURNS integer LANGUAGE sql AS $c$
  SELECT undo_charges(request_ids, NULL, 499, 'client_closed')
$c$;
