import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { CodeBlock } from "@/components/ui/code-block";
import { mcpClientConfigs } from "@/lib/mcp/client-config";
import { MCP_PATH } from "@/lib/mcp/http-path";

/**
 * The API page's "Agents" section: the MCP server's URL, its tools with their costs, and ready
 * client configurations. The configurations hold a placeholder for the key, never a key.
 */
export type AgentTool = { name: string; summary: string; costCredits: number };

export function AgentsSection({
  origin,
  tools,
  heading,
}: {
  origin: string;
  tools: readonly AgentTool[];
  heading: (id: string, text: string) => ReactNode;
}) {
  const mcpUrl = `${origin}${MCP_PATH}`;
  return (
    <section aria-labelledby="agents" className="flex flex-col gap-5 border-t border-border pt-10" data-testid="agents-section">
      <div className="flex flex-col gap-3">
        {heading("agents", "Agents (MCP)")}
        <p className="max-w-3xl text-sm leading-relaxed text-muted">
          AI agents call the same lookups as tools of a remote Model Context Protocol server (Streamable HTTP, stateless), with
          the same API keys, per-second limits and credits. Only a found record is charged; the agent reads what a tool
          costs in its description. Without a key the server answers HTTP 401. Agents can read{" "}
          <a href="/llms.txt" className="font-medium text-accent underline-offset-4 hover:underline">
            /llms.txt
          </a>
          .
        </p>
        <p className="flex w-fit max-w-full min-w-0 items-center gap-2 rounded-lg border border-border bg-surface px-3 py-1.5 font-mono text-[13px]">
          <span className="font-semibold text-success">MCP</span>
          <span className="break-all" data-testid="mcp-url">
            {mcpUrl}
          </span>
        </p>
      </div>
      <ul className="flex flex-wrap gap-2" aria-label="Tools">
        {tools.map((tool) => (
          <li key={tool.name}>
            <Badge variant={tool.costCredits === 0 ? "success" : "neutral"}>
              <span className="font-mono">{tool.name}</span>
              <span className="ml-1 text-muted">{tool.costCredits === 0 ? "free" : `${tool.costCredits} cr`}</span>
            </Badge>
          </li>
        ))}
      </ul>
      {mcpClientConfigs(mcpUrl).map((config) => (
        <div key={config.id} className="flex flex-col gap-2">
          <h3 className="text-sm font-semibold">{config.title}</h3>
          <p className="max-w-3xl text-sm text-muted">{config.note}</p>
          <CodeBlock code={config.code} title={config.id === "claude-code" ? "Terminal" : "JSON"} wrap={config.id === "claude-code"} />
        </div>
      ))}
    </section>
  );
}
