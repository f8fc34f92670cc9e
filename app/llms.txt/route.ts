import { env } from "@/lib/env";
import { llmsTxt } from "@/lib/mcp/llms-txt";
import { registry } from "@/lib/operations";

// /llms.txt: the API and the MCP server described for agents, from the operations registry.
export const dynamic = "force-dynamic";

export const GET = (): Response =>
  new Response(llmsTxt(registry, env().publicUrl), {
    headers: { "Content-Type": "text/markdown; charset=utf-8", "Cache-Control": "public, max-age=300" },
  });
