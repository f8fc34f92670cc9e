-- The workspace the console works in (docs/teams.md "The active workspace"): its lookups and
-- batches run with the user's console key of that workspace. Null: the personal workspace.
ALTER TABLE users ADD COLUMN active_workspace_id text REFERENCES workspaces(id) ON DELETE SET NULL;
