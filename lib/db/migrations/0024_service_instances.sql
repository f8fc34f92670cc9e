-- What each running instance last said about itself, for the system page (docs/monitoring.md
-- "The system page"): behind a balancer several instances share the database, and each one
-- writes its row every few seconds, so any of them can show all of them. An instance is its name
-- (INSTANCE_ID, or host:port) and the id of one start of it: a restarted instance is a new row,
-- and the old one goes stale. seen_at is the database's clock, so instances' clocks never matter.
-- Rows unseen for a day are deleted by the instances themselves (lib/system/publisher.ts).
CREATE TABLE service_instances (
  instance text NOT NULL,
  start_id text NOT NULL,
  version text NOT NULL,
  node_version text NOT NULL,
  started_at timestamptz NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  snapshot json NOT NULL,
  PRIMARY KEY (instance, start_id)
);
CREATE INDEX service_instances_seen_idx ON service_instances (seen_at);
