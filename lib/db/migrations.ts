/**
 * Schema migrations, applied in order and recorded in schema_migrations. Kept as strings in code
 * so that they ship inside any build (server bundle, standalone output, CLI) without file lookups.
 * The same SQL runs on PGlite and PostgreSQL. Never edit a migration that has landed: add one.
 */
export type Migration = { id: string; sql: string };

const init = /* sql */ `
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

-- Settles a batch of authenticated requests in one statement (group commit): for each request,
-- in arrival order per key, the credit charge is one conditional UPDATE (never read-then-write)
-- and exactly one usage row is written in the same transaction.
-- outcome: 'found' (charge the cost: 200, or 402 when short, or 401 when the key stopped being
-- usable), 'not_found' (402 when short of credits, else 404; nothing charged), or an HTTP status
-- as text (400, 429, 500: nothing charged).
CREATE FUNCTION settle_requests(batch json)
RETURNS TABLE (r_request_id uuid, r_status integer, r_charged integer, r_remaining bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  item record;
  remaining bigint;
  key_usable boolean;
  final_status integer;
  charged integer;
BEGIN
  FOR item IN
    SELECT x.* FROM json_to_recordset(batch) AS x(
      ord integer, request_id uuid, key_id text, operation text, cost integer, outcome text,
      latency_ms integer, params_summary text, created_at timestamptz)
    ORDER BY x.key_id, x.ord
  LOOP
    charged := 0;
    remaining := NULL;
    IF item.outcome = 'found' THEN
      UPDATE api_keys k
        SET credits_remaining = k.credits_remaining - item.cost, last_used_at = item.created_at
        WHERE k.id = item.key_id AND k.status = 'active'
          AND (k.expires_at IS NULL OR k.expires_at > now())
          AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.owner_id AND u.status = 'disabled')
          AND k.credits_remaining >= item.cost
        RETURNING k.credits_remaining INTO remaining;
      IF FOUND THEN
        final_status := 200;
        charged := item.cost;
      END IF;
    END IF;
    IF remaining IS NULL THEN
      UPDATE api_keys k SET last_used_at = item.created_at
        WHERE k.id = item.key_id
        RETURNING k.credits_remaining, (k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > now())
          AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.owner_id AND u.status = 'disabled'))
        INTO remaining, key_usable;
      IF NOT FOUND THEN
        remaining := 0;
        key_usable := false;
      END IF;
      final_status := CASE
        WHEN item.outcome IN ('found', 'not_found') AND NOT key_usable THEN 401
        WHEN item.outcome IN ('found', 'not_found') AND remaining < item.cost THEN 402
        WHEN item.outcome = 'not_found' THEN 404
        ELSE item.outcome::integer
      END;
    END IF;
    IF final_status <> 401 THEN
      INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at)
        VALUES (item.request_id, item.key_id, item.operation, final_status, charged, item.latency_ms, item.params_summary, item.created_at);
    END IF;
    r_request_id := item.request_id;
    r_status := final_status;
    r_charged := charged;
    r_remaining := remaining;
    RETURN NEXT;
  END LOOP;
END
$fn$;
`;

const accounts = /* sql */ `
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
`;

export const migrations: Migration[] = [
  { id: "0001_init", sql: init },
  { id: "0002_accounts", sql: accounts },
];
