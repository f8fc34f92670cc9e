-- Personal data under control (lib/privacy): subjects an admin suppressed (their records erased,
-- never answered or collected again), a lease so that one instance at a time runs a periodic job
-- (the retention sweep), and indexes the sweep reads by age.

CREATE TABLE suppressions (
  kind text NOT NULL,
  subject text NOT NULL,
  reason text NOT NULL,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_by_email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, subject)
);
CREATE TABLE job_leases (
  name text PRIMARY KEY,
  owner text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX upstream_pages_fetched_idx ON upstream_pages (fetched_at);
CREATE INDEX upstream_cursors_created_idx ON upstream_cursors (created_at);
CREATE INDEX batch_items_finished_idx ON batch_items (finished_at) WHERE data IS NOT NULL;
CREATE INDEX events_upstream_age_idx ON events (fetched_at) WHERE source = 'upstream';
CREATE INDEX pin_users_upstream_age_idx ON pin_users (fetched_at) WHERE source = 'upstream';
CREATE INDEX profiles_upstream_age_idx ON profiles (fetched_at) WHERE source = 'upstream';
