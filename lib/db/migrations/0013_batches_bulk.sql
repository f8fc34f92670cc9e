
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
