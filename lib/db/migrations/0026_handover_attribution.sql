-- A key of no one that finishes a removed member's open batches (docs/teams.md
-- "What removal does") spends on that member's behalf: their usage, their budget. on_behalf_of
-- names them; the usage by member attributes the key's requests to them, as it does their own keys'.
ALTER TABLE api_keys ADD COLUMN on_behalf_of text REFERENCES users(id) ON DELETE SET NULL;
