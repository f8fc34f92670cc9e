
-- Per-user provider keys (UPSTREAM_KEY_MODE=per-user): the key sealed with AES-256-GCM, bound to
-- its user; only a hint is ever shown. last_error: the provider's latest refusal of the key.
CREATE TABLE provider_keys (
  user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  key_encrypted text NOT NULL,
  key_hint text NOT NULL,
  validated_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  last_error_at timestamptz
);

-- Settings an admin changes at run time (the shared provider base URL and key); secrets sealed.
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL,
  encrypted boolean NOT NULL DEFAULT false,
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The upstream cache: one row per page fetched from the provider. The records themselves live in
-- the record tables (source 'upstream'); a row says where its page sits in the stored list
-- (start_position, entry_count) and when it was fetched. page: 0 for an event, the offset for
-- followers, the page number for publications.
CREATE TABLE upstream_pages (
  kind text NOT NULL CHECK (kind IN ('event', 'followers', 'publications')),
  subject text NOT NULL,
  page integer NOT NULL,
  start_position integer NOT NULL,
  entry_count integer NOT NULL,
  has_more boolean NOT NULL DEFAULT false,
  total integer,
  fetched_at timestamptz NOT NULL,
  PRIMARY KEY (kind, subject, page)
);

-- Our follower cursors carry (user, offset); the provider's cursor for that offset is kept here.
CREATE TABLE upstream_cursors (
  user_id text NOT NULL,
  position integer NOT NULL,
  provider_node_id text NOT NULL,
  provider_cursor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, position)
);
