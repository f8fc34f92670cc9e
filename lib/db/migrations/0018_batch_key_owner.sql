-- A batch belongs to a user, or, when the API key that creates it belongs to nobody (an
-- operator's key from the key CLI), to that key alone: user_id is then null and key_id says whose.

ALTER TABLE batches ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE batches ADD CONSTRAINT batches_owner_check CHECK (user_id IS NOT NULL OR key_id IS NOT NULL);
