-- sweep_stale_reservations(older_than): reservations (usage rows pending with status 102) left
-- by a process that died mid-request, older than older_than, are refunded and recorded as 500
-- with reason 'abandoned' — so a request is in the end either charged with a 200 record or not
-- charged at all. Returns how many were swept. Rows another transaction holds (a settlement
-- finalising them right now) are skipped. Locks: reservations, then keys by id (as settlement).
CREATE OR REPLACE FUNCTION sweep_stale_reservations(older_than interval) RETURNS integer LANGUAGE plpgsql AS $sw$
DECLARE
  s_id bigint[]; s_key text[]; s_operation text[]; s_created timestamptz[]; s_charged integer[];
BEGIN
  SELECT array_agg(s.id ORDER BY s.id), array_agg(s.key_id ORDER BY s.id), array_agg(s.operation ORDER BY s.id),
         array_agg(s.created_at ORDER BY s.id), array_agg(s.credits_charged ORDER BY s.id)
    INTO s_id, s_key, s_operation, s_created, s_charged
    FROM (SELECT u.id, u.key_id, u.operation, u.created_at, u.credits_charged FROM usage_events u
          WHERE u.status = 102 AND u.created_at < now() - older_than
          ORDER BY u.id FOR UPDATE SKIP LOCKED) s;
  IF s_id IS NULL THEN RETURN 0; END IF;

  PERFORM 1 FROM api_keys k WHERE k.id = ANY(s_key) ORDER BY k.id FOR UPDATE;
  UPDATE usage_events SET status = 500, credits_charged = 0, reason = 'abandoned' WHERE id = ANY(s_id);
  -- Back to the key's own balance, or to its pool (credit_back, lib/credits/settle.sql).
  PERFORM credit_back(s_key, s_charged);
  PERFORM add_usage_daily(s_key, s_created, s_operation, array_fill(500, ARRAY[cardinality(s_id)]),
                          array_fill(0, ARRAY[cardinality(s_id)]), array_fill(0, ARRAY[cardinality(s_id)]));
  RETURN cardinality(s_id);
END
$sw$;
