-- Sessions that end on the server (lib/auth/session-store.ts): a signed-out session's id until
-- its cookie would have expired anyway; and the addresses each user has signed in from, which
-- the per-account sign-in backoff leaves alone (lib/auth/sign-in.ts).

CREATE TABLE revoked_sessions (
  session_id text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_sessions_expiry_idx ON revoked_sessions (expires_at);
CREATE TABLE sign_in_addresses (
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  address text NOT NULL,
  last_success_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, address)
);
