export const MCP_PATH = "/mcp";
