
-- Free refusals beyond the first 10 per key, operation, status and second are kept as one
-- aggregate row (lib/credits/settle.sql record_usage): requests says how many requests a row
-- stands for (1 for every ordinary row), aggregate_second marks an aggregate and its second.
ALTER TABLE usage_events ADD COLUMN requests integer NOT NULL DEFAULT 1 CHECK (requests >= 1);
ALTER TABLE usage_events ADD COLUMN aggregate_second timestamptz;
CREATE UNIQUE INDEX usage_events_aggregate_idx ON usage_events (key_id, operation, status, aggregate_second)
  WHERE aggregate_second IS NOT NULL;
