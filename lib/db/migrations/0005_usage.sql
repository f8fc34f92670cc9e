
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
