import type { Registry } from "@/lib/operations";
import { mcpClientConfigs } from "./client-config";
import { MCP_MAX_BYTES, MCP_MAX_ITEMS } from "./fit";
import { MCP_PATH } from "./http-path";

/**
 * /llms.txt (llmstxt.org): what an agent needs to use this deployment — the API, the MCP server,
 * what each call costs and the limits — in Markdown, generated from the operations registry.
 */
const credits = (count: number) => `${count} credit${count === 1 ? "" : "s"}`;

export const llmsTxt = (registry: Registry, origin: string): string => {
  const mcpUrl = `${origin}${MCP_PATH}`;
  const operations = registry.map(
    (operation) =>
      `- \`GET ${operation.path}\` (MCP tool \`${operation.id}\`): ${operation.summary} — ${operation.label.lookedUpBy}. ` +
      `${credits(operation.costCredits)} per found record; parameters: ${operation.params.map((param) => `\`${param.name}\``).join(", ")}.`,
  );
  const http = mcpClientConfigs(mcpUrl).find((config) => config.id === "http");
  return [
    "# Social Lookup",
    "",
    "> A metered lookup API for public records on three social sites: event details (by page URL or id), a pin-board user's followers and a professional profile's publications. Every call carries a Bearer API key and spends credits from that key; only a found record (HTTP 200) is charged.",
    "",
    "## API",
    "",
    `- Base URL: ${origin}. Send \`Authorization: Bearer <key>\`. Every answer is the JSON envelope \`{code, message, data, requestId}\`.`,
    `- OpenAPI 3.1 document: ${origin}/v1/openapi.json`,
    ...operations,
    "- `GET /v1/account` (MCP tool `account_balance`): the key's credits and spend. Free.",
    "- Errors: 400 bad parameter, 401 key missing or invalid, 402 `apiKey quota is not enough`, 403 key not allowed, 404 not found, 429 `qps limit exceeded` (see `Retry-After`), 500. None of them is charged.",
    "",
    "## MCP server",
    "",
    `- URL: ${mcpUrl} — Streamable HTTP, stateless; send the same Bearer key in the Authorization header (no key: HTTP 401).`,
    "- One tool per operation (the names above) plus `account_balance`, and `start_batch`, `batch_status`, `batch_results` for batches of many inputs. Each tool's description states its cost.",
    `- Large pages are cut to ${MCP_MAX_ITEMS} entries per list and ${MCP_MAX_BYTES / 1024} KB; the result says what was cut and how to ask for the next page (cursor or page number).`,
    "- Failures come back as tool results with `isError` and the API's message followed by what to do next.",
    ...(http ? ["", "Configuration (Streamable HTTP):", "", "```json", http.code, "```"] : []),
    "",
    "## Limits",
    "",
    "- Each key has a per-second request limit; over it: 429 with `Retry-After`, nothing charged.",
    "- Credits are reserved atomically: concurrent calls never spend more than the key holds.",
    "",
  ].join("\n");
};
