/**
 * Ready configurations of common MCP clients for this server, with a placeholder where the key
 * goes — never a key. The console's API page, docs/agents.md and /llms.txt show these.
 */
export const KEY_PLACEHOLDER = "<YOUR_API_KEY>";

export type ClientConfig = { id: string; title: string; note: string; code: string };

const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

export const mcpClientConfigs = (mcpUrl: string): ClientConfig[] => [
  {
    id: "http",
    title: "Streamable HTTP with a header",
    note: "Clients that speak Streamable HTTP and send headers (Cursor, VS Code, Windsurf and most agent frameworks): the server URL and an Authorization header.",
    code: pretty({ mcpServers: { "social-lookup": { type: "http", url: mcpUrl, headers: { Authorization: `Bearer ${KEY_PLACEHOLDER}` } } } }),
  },
  {
    id: "claude-code",
    title: "Claude Code",
    note: "One command adds the server over HTTP.",
    code: `claude mcp add --transport http social-lookup ${mcpUrl} --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`,
  },
  {
    id: "stdio",
    title: "stdio-only clients, through mcp-remote",
    note: "Clients that start local servers only (Claude Desktop and others): mcp-remote bridges stdio to this server. The key stays in the env block.",
    code: pretty({
      mcpServers: {
        "social-lookup": {
          command: "npx",
          args: ["-y", "mcp-remote", mcpUrl, "--header", "Authorization:${AUTH_HEADER}"],
          env: { AUTH_HEADER: `Bearer ${KEY_PLACEHOLDER}` },
        },
      },
    }),
  },
];
