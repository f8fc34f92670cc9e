-- Where a request came in: /v1 with a key, the console, a batch, or an MCP tool call. Written with
-- each usage row by the settle functions (record_usage in lib/credits/settle.sql); /v1 is the
-- default.

ALTER TABLE usage_events ADD COLUMN channel text NOT NULL DEFAULT 'api'
  CHECK (channel IN ('api', 'console', 'batch', 'mcp'));
