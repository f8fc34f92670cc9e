
-- Batch lookups (lib/batches): a job per batch, a row per (batch, input, page) it looks up.
-- One instance runs a batch at a time: it holds the lease (lease_owner until lease_expires_at)
-- and renews it as it goes; a batch whose lease ran out is taken over by any instance.
CREATE TABLE batches (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id),
  operation text NOT NULL,
  max_pages integer NOT NULL DEFAULT 1 CHECK (max_pages >= 1),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'paused', 'done', 'stopped', 'canceled')),
  stop_reason text CHECK (stop_reason IN ('cap', 'credits', 'key')),
  total integer NOT NULL CHECK (total >= 0),
  done integer NOT NULL DEFAULT 0,
  succeeded integer NOT NULL DEFAULT 0,
  not_found integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  max_credits bigint NOT NULL CHECK (max_credits >= 0),
  max_cost_credits bigint NOT NULL CHECK (max_cost_credits >= 0),
  -- Never above max_credits: each lookup is reserved against the cap before it runs.
  credits_spent bigint NOT NULL DEFAULT 0 CHECK (credits_spent >= 0 AND credits_spent <= max_credits),
  retry_of text REFERENCES batches(id),
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX batches_user_idx ON batches (user_id, created_at DESC, id DESC);
CREATE INDEX batches_runnable_idx ON batches (created_at, id) WHERE status IN ('queued', 'running');

-- Per input: where it stands once its pages are looked up (outcome is set when it is done).
CREATE TABLE batch_inputs (
  batch_id text NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  position integer NOT NULL,
  input text NOT NULL,
  outcome text CHECK (outcome IN ('succeeded', 'not_found', 'failed')),
  PRIMARY KEY (batch_id, position)
);

-- A lookup of the batch: pending → in_flight (attempt_id set, credits reserved against the cap)
-- → done. The primary key makes a page a lookup at most once; request_id ties it to its usage
-- record, which is how an attempt cut short by a crash is found charged or not.
CREATE TABLE batch_items (
  batch_id text NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
  position integer NOT NULL,
  page integer NOT NULL CHECK (page >= 1),
  query text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'in_flight', 'done')),
  attempt_id uuid,
  attempt_started_at timestamptz,
  key_id text,
  http_status integer,
  credits_charged integer NOT NULL DEFAULT 0,
  request_id uuid UNIQUE,
  message text,
  summary text,
  data text,
  finished_at timestamptz,
  PRIMARY KEY (batch_id, position, page)
);
CREATE INDEX batch_items_open_idx ON batch_items (batch_id, position, page) WHERE state <> 'done';
