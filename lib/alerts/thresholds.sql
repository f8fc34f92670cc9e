-- Several alert thresholds per key (docs/api.md "Keys"), in credits or in percent of the credits granted
-- (rounded up, as the single threshold of 0003). A threshold fires once when a change of the
-- balance takes it to or below the threshold while armed — one key_alerts row, delivered by the
-- same webhook worker and shown by the same console banners — and is disarmed; any rise of the
-- balance above it (a top-up, a refill, a refund) arms it again. Written as a trigger on the
-- balance so every path that moves credits (settlement in one statement per key, top-ups,
-- refills) is covered in the same transaction as the move.
CREATE OR REPLACE FUNCTION alert_threshold_credits(credits bigint, percent integer, credits_granted bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $f$
  SELECT COALESCE(credits, ceil(credits_granted * percent / 100.0)::bigint)
$f$;

CREATE OR REPLACE FUNCTION follow_alert_thresholds() RETURNS trigger
LANGUAGE plpgsql AS $f$
BEGIN
  IF NEW.credits_remaining < OLD.credits_remaining THEN
    WITH fired AS (
      UPDATE key_alert_thresholds t SET armed = false
      WHERE t.key_id = NEW.id AND t.armed
        AND NEW.credits_remaining <= alert_threshold_credits(t.credits, t.percent, NEW.credits_granted)
      RETURNING alert_threshold_credits(t.credits, t.percent, NEW.credits_granted) AS threshold
    )
    INSERT INTO key_alerts (key_id, kind, threshold_credits, credits_remaining)
      SELECT NEW.id, 'threshold', f.threshold, NEW.credits_remaining FROM fired f ORDER BY f.threshold DESC;
  ELSE
    UPDATE key_alert_thresholds t SET armed = true
    WHERE t.key_id = NEW.id AND NOT t.armed
      AND NEW.credits_remaining > alert_threshold_credits(t.credits, t.percent, NEW.credits_granted);
  END IF;
  RETURN NULL;
END
$f$;

DROP TRIGGER IF EXISTS api_keys_alert_thresholds ON api_keys;
CREATE TRIGGER api_keys_alert_thresholds AFTER UPDATE OF credits_remaining ON api_keys
  FOR EACH ROW WHEN (NEW.credits_remaining IS DISTINCT FROM OLD.credits_remaining)
  EXECUTE FUNCTION follow_alert_thresholds();

-- A team's pool crossing the thresholds of the keys that draw from it (docs/teams.md): each key's
-- thresholds are lines on the pool's credits (a percentage of what the pool was granted), fired
-- and re-armed as the pool moves, exactly as a key's own balance fires them above.
CREATE OR REPLACE FUNCTION follow_pool_alert_thresholds() RETURNS trigger
LANGUAGE plpgsql AS $f$
BEGIN
  IF NEW.pool_credits < OLD.pool_credits THEN
    WITH fired AS (
      UPDATE key_alert_thresholds t SET armed = false
      FROM api_keys k
      WHERE k.id = t.key_id AND k.pool_id = NEW.id AND t.armed
        AND NEW.pool_credits <= alert_threshold_credits(t.credits, t.percent, NEW.pool_granted)
      RETURNING t.key_id, alert_threshold_credits(t.credits, t.percent, NEW.pool_granted) AS threshold
    )
    INSERT INTO key_alerts (key_id, kind, threshold_credits, credits_remaining)
      SELECT f.key_id, 'threshold', f.threshold, NEW.pool_credits FROM fired f ORDER BY f.key_id, f.threshold DESC;
  ELSE
    UPDATE key_alert_thresholds t SET armed = true
    FROM api_keys k
    WHERE k.id = t.key_id AND k.pool_id = NEW.id AND NOT t.armed
      AND NEW.pool_credits > alert_threshold_credits(t.credits, t.percent, NEW.pool_granted);
  END IF;
  RETURN NULL;
END
$f$;

DROP TRIGGER IF EXISTS workspaces_alert_thresholds ON workspaces;
CREATE TRIGGER workspaces_alert_thresholds AFTER UPDATE OF pool_credits ON workspaces
  FOR EACH ROW WHEN (NEW.pool_credits IS DISTINCT FROM OLD.pool_credits)
  EXECUTE FUNCTION follow_pool_alert_thresholds();
