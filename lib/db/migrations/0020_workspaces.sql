-- Workspaces (docs/teams.md): keys, the credit pool, batches, alerts, refills, usage and the audit
-- log belong to a workspace. Every user has a personal one, whose keys keep their own balances
-- exactly as before; a team workspace's keys draw from the workspace's pool (api_keys.pool_id).

CREATE TABLE workspaces (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  -- The personal workspace of this user (one each); null for a team workspace.
  personal_user_id text UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  -- The pool: what the team's keys draw from (unused by a personal workspace).
  pool_credits bigint NOT NULL DEFAULT 0 CHECK (pool_credits >= 0),
  pool_granted bigint NOT NULL DEFAULT 0 CHECK (pool_granted >= 0),
  -- One requests-per-second limit shared by all the workspace's keys, besides each key's own.
  qps_limit integer CHECK (qps_limit IS NULL OR qps_limit BETWEEN 1 AND 100000),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workspace_members (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'analyst', 'viewer')),
  -- Credits this member's keys may spend from the pool per calendar month (UTC); null: no budget.
  monthly_budget_credits bigint CHECK (monthly_budget_credits IS NULL OR monthly_budget_credits >= 0),
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON workspace_members (user_id);

-- An invitation is a link shown once: only its token's hash is kept.
CREATE TABLE workspace_invitations (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'analyst', 'viewer')),
  token_hash bytea NOT NULL UNIQUE,
  invited_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by text REFERENCES users(id) ON DELETE SET NULL,
  revoked_at timestamptz
);
CREATE INDEX workspace_invitations_workspace_idx ON workspace_invitations (workspace_id, created_at DESC);

-- Every user gets a personal workspace, whichever path creates the user.
CREATE FUNCTION add_personal_workspace() RETURNS trigger LANGUAGE plpgsql AS $t$
BEGIN
  INSERT INTO workspaces (id, name, personal_user_id) VALUES ('wsp_' || NEW.id, 'Personal', NEW.id);
  INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ('wsp_' || NEW.id, NEW.id, 'owner');
  RETURN NEW;
END
$t$;
CREATE TRIGGER users_personal_workspace AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION add_personal_workspace();

INSERT INTO workspaces (id, name, personal_user_id, created_at) SELECT 'wsp_' || id, 'Personal', id, created_at FROM users;
INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) SELECT 'wsp_' || id, id, 'owner', created_at FROM users;

-- A key's workspace (null: an operator's key from the key CLI, which belongs to no one), and the
-- pool it draws from: its team workspace's, or null when it keeps its own balance.
ALTER TABLE api_keys ADD COLUMN workspace_id text REFERENCES workspaces(id);
ALTER TABLE api_keys ADD COLUMN pool_id text REFERENCES workspaces(id);
-- A cap of the key's own besides the daily one: credits per calendar month (UTC) or in all.
ALTER TABLE api_keys ADD COLUMN spend_cap_credits bigint CHECK (spend_cap_credits IS NULL OR spend_cap_credits >= 0);
ALTER TABLE api_keys ADD COLUMN spend_cap_period text CHECK (spend_cap_period IN ('month', 'total'));
ALTER TABLE api_keys ADD CONSTRAINT api_keys_spend_cap_whole CHECK ((spend_cap_credits IS NULL) = (spend_cap_period IS NULL));
UPDATE api_keys SET workspace_id = 'wsp_' || owner_id WHERE owner_id IS NOT NULL;
CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, owner_id);

ALTER TABLE batches ADD COLUMN workspace_id text REFERENCES workspaces(id);
UPDATE batches b SET workspace_id = k.workspace_id FROM api_keys k WHERE k.id = b.key_id;
UPDATE batches SET workspace_id = 'wsp_' || user_id WHERE workspace_id IS NULL AND user_id IS NOT NULL;

ALTER TABLE audit_log ADD COLUMN workspace_id text REFERENCES workspaces(id) ON DELETE SET NULL;
CREATE INDEX audit_log_workspace_idx ON audit_log (workspace_id, created_at DESC, id DESC);
