-- Key policies (docs/api.md "Keys"): what a key may call and from where (null: anything, anywhere),
-- its automatic refill (refilled_period: the start of the last period it was refilled for;
-- lib/keys/refill.sql) and its alert thresholds beyond the single one of 0003
-- (lib/alerts/thresholds.sql).

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
