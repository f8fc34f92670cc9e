
CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL DEFAULT '',
  role text NOT NULL CHECK (role IN ('admin', 'analyst')),
  password_hash text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  credit_allowance bigint NOT NULL DEFAULT 0 CHECK (credit_allowance >= 0),
  session_version integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner_id text REFERENCES users(id),
  token_hash bytea NOT NULL UNIQUE,
  token_prefix text NOT NULL,
  previous_token_hash bytea,
  previous_token_expires_at timestamptz,
  credits_remaining bigint NOT NULL CHECK (credits_remaining >= 0),
  credits_granted bigint NOT NULL CHECK (credits_granted >= 0),
  qps_limit integer NOT NULL DEFAULT 5 CHECK (qps_limit BETWEEN 1 AND 100000),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  expires_at timestamptz
);
CREATE INDEX api_keys_owner_idx ON api_keys (owner_id);

CREATE TABLE usage_events (
  id bigserial PRIMARY KEY,
  request_id uuid NOT NULL UNIQUE,
  key_id text NOT NULL REFERENCES api_keys(id),
  operation text NOT NULL,
  status integer NOT NULL,
  credits_charged integer NOT NULL CHECK (credits_charged >= 0),
  latency_ms integer NOT NULL,
  params_summary text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_events_key_time_idx ON usage_events (key_id, created_at DESC, id DESC);
CREATE INDEX usage_events_time_idx ON usage_events (created_at DESC, id DESC);

-- Records are kept as the API's own JSON text (json keeps key order, jsonb would not).
CREATE TABLE events (
  event_id text PRIMARY KEY,
  record json NOT NULL,
  source text NOT NULL DEFAULT 'import',
  fetched_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pin_users (
  user_id text PRIMARY KEY,
  node_id text NOT NULL UNIQUE,
  follower_count integer NOT NULL DEFAULT 0,
  source text NOT NULL DEFAULT 'import',
  fetched_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pin_followers (
  user_id text NOT NULL REFERENCES pin_users(user_id) ON DELETE CASCADE,
  position integer NOT NULL,
  record json NOT NULL,
  PRIMARY KEY (user_id, position)
);

CREATE TABLE profiles (
  urn text PRIMARY KEY,
  publication_count integer NOT NULL DEFAULT 0,
  source text NOT NULL DEFAULT 'import',
  fetched_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE publications (
  urn text NOT NULL REFERENCES profiles(urn) ON DELETE CASCADE,
  position integer NOT NULL,
  record json NOT NULL,
  PRIMARY KEY (urn, position)
);

