-- Who pays a key's automatic refill (lib/keys/refill.sql): refill_payer_id is the user whose credit
-- allowance each refill is taken from, NULL for a refill an administrator or the operator's CLI
-- granted. When the allowance cannot pay a period's refill, the refill stops: refill_stopped_at
-- says when, refill_stopped_credits what could not be paid; setting the refill again re-arms it.
-- Refills already set on an analyst's key are paid by its owner from now on.

ALTER TABLE api_keys ADD COLUMN refill_payer_id text REFERENCES users(id);
ALTER TABLE api_keys ADD COLUMN refill_stopped_at timestamptz;
ALTER TABLE api_keys ADD COLUMN refill_stopped_credits bigint CHECK (refill_stopped_credits >= 0);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_refill_stop_whole CHECK (
  (refill_stopped_at IS NULL) = (refill_stopped_credits IS NULL) AND (refill_credits IS NOT NULL OR refill_stopped_at IS NULL));
UPDATE api_keys k SET refill_payer_id = k.owner_id
FROM users u
WHERE u.id = k.owner_id AND u.role <> 'admin' AND k.refill_credits IS NOT NULL;
