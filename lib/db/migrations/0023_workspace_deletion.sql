-- A team workspace can be deleted by an owner (docs/teams.md "Deleting and transferring"): its
-- members, keys and open work end, and the row stays, marked, so that its usage and audit
-- history keep what they point at.
ALTER TABLE workspaces ADD COLUMN deleted_at timestamptz;
