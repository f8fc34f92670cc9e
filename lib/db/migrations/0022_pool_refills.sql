-- A team workspace's pool may be refilled automatically, as a key can (docs/teams.md "The pool"):
-- each UTC day or month, topped up to or increased by refill_credits. Granted by the service
-- administrator, so there is no payer. A key that draws from a pool has no refill of its own.
ALTER TABLE workspaces ADD COLUMN refill_credits bigint CHECK (refill_credits IS NULL OR refill_credits BETWEEN 1 AND 1000000000);
ALTER TABLE workspaces ADD COLUMN refill_interval text CHECK (refill_interval IN ('daily', 'monthly'));
ALTER TABLE workspaces ADD COLUMN refill_day_of_month integer CHECK (refill_day_of_month BETWEEN 1 AND 31);
ALTER TABLE workspaces ADD COLUMN refill_mode text CHECK (refill_mode IN ('top_up_to', 'increase_by'));
ALTER TABLE workspaces ADD COLUMN refilled_period date;
ALTER TABLE workspaces ADD CONSTRAINT workspaces_refill_whole CHECK (
  (refill_credits IS NULL) = (refill_interval IS NULL) AND (refill_credits IS NULL) = (refill_mode IS NULL));
