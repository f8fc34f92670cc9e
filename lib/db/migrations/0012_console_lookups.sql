
-- The lookups a user ran in the console itself (not with an API key, not in a batch), by the
-- request id of their usage row: the console's "Recent lookups" lists only these.
CREATE TABLE console_lookups (
  request_id uuid PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_lookups_user_idx ON console_lookups (user_id, created_at DESC);
