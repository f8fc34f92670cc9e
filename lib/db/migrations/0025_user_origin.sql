-- How an account came to be: made by the service administrator (or the first start, or a CLI), or
-- by accepting an invitation when the service allows sign-up through invitations
-- (docs/teams.md "Who makes accounts"). An invitation-made account that never signed in may be
-- reclaimed by the service administrator creating an account for the same address.
ALTER TABLE users ADD COLUMN created_via text NOT NULL DEFAULT 'admin' CHECK (created_via IN ('admin', 'invitation'));
