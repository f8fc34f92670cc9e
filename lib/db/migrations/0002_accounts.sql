
-- Keys whose token the console may use for lookups: the token kept encrypted (AES-256-GCM),
-- never sent to a browser. users.console_key_id is the one in use.
CREATE TABLE console_tokens (
  key_id text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_encrypted text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_tokens_user_idx ON console_tokens (user_id);
ALTER TABLE users ADD COLUMN console_key_id text REFERENCES api_keys(id) ON DELETE SET NULL;

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  actor_id text REFERENCES users(id) ON DELETE SET NULL,
  actor_email text NOT NULL,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  details json NOT NULL DEFAULT '{}',
  ip text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_time_idx ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id);
