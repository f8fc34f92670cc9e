-- The rule "this key may be used now", written once. A key is usable while it is active (not
-- revoked), not past its expiry, its owner (if any) is not disabled, and its owner's role in the
-- key's workspace still runs lookups there (docs/teams.md "Roles": a member demoted to viewer has
-- their keys there suspended, and a promotion restores them; the roles listed are those the role
-- table of lib/workspaces/roles.ts allows "lookups.run", a unit test holds the two together; a key
-- whose owner is not a member there, an operator's or the service administrator's, is not
-- suspended by this). Its previous token
-- (kept after a roll) is shown only while that token's grace period lasts.
-- Used by: authentication (lib/keys/repository.ts loadCredentials), settlement (settle_requests),
-- /v1/account (lib/usage/account.ts), the usage summary and the forecast (lib/usage/*.ts).
CREATE OR REPLACE VIEW usable_keys AS
SELECT
  k.id,
  k.owner_id,
  k.token_hash,
  CASE WHEN k.previous_token_expires_at > now() THEN k.previous_token_hash END AS previous_token_hash,
  CASE WHEN k.previous_token_expires_at > now() THEN k.previous_token_expires_at END AS previous_token_expires_at,
  k.qps_limit,
  k.expires_at
FROM api_keys k
WHERE k.status = 'active'
  AND (k.expires_at IS NULL OR k.expires_at > now())
  AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = k.owner_id AND u.status = 'disabled')
  AND NOT EXISTS (
    SELECT 1 FROM workspace_members m
    WHERE m.workspace_id = k.workspace_id AND m.user_id = k.owner_id AND m.role NOT IN ('owner', 'admin', 'analyst'));

-- What a key can spend, written once: its own balance, or its team workspace's pool
-- (api_keys.pool_id, docs/teams.md). Readers of a key's credits read them here.
CREATE OR REPLACE VIEW key_credits AS
SELECT
  k.id,
  k.pool_id,
  COALESCE(w.pool_credits, k.credits_remaining) AS credits_remaining,
  COALESCE(w.pool_granted, k.credits_granted) AS credits_granted
FROM api_keys k
LEFT JOIN workspaces w ON w.id = k.pool_id;
