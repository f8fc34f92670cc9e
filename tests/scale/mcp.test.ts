import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { cluster, issueKey, readLedger, skipped, sumCharged, useWholeCluster, type ScaleInstance } from "./harness";

/**
 * /mcp is stateless: an agent's calls may land on any instance behind a load balancer. Tool calls
 * spread over two instances give the same answers as on one, and the credits they spend are
 * exact across both.
 */
const connect = async (instance: ScaleInstance, token: string): Promise<Client> => {
  const client = new Client({ name: "scale-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", instance.baseUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
};

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe.skipIf(skipped())("MCP tool calls over two instances", () => {
  useWholeCluster();

  it("answer the same on both, and every page of followers is reachable by following the cursor across instances", async () => {
    const [first, second] = cluster().instances;
    if (first === undefined || second === undefined) throw new Error("the scale cluster needs two instances");
    const key = await issueKey("scale-mcp", { credits: 10_000, qps: 1000 });
    const clients = [await connect(first, key.token), await connect(second, key.token)];
    try {
      const [onFirst, onSecond] = await Promise.all(clients.map((client) => call(client, "get_user_publications", { urn: "urn:li:member:3000000001", page: 3 })));
      expect(onFirst?.isError ?? false).toBe(false);
      expect(onSecond?.structuredContent).toEqual(onFirst?.structuredContent);

      // Page after page, alternating instances: the cursor of one instance is good on the other.
      let args: Record<string, unknown> = { userid: "2000000002" };
      const seen: string[] = [];
      for (let pageIndex = 0; pageIndex < 5; pageIndex += 1) {
        const result = await call(clients[pageIndex % 2] as Client, "followers", args);
        expect(result.isError ?? false).toBe(false);
        const page = result.structuredContent as { followers: { node: { entityId: string } }[]; node_id: string; page_info: { has_next_page: boolean; end_cursor: string | null } };
        seen.push(...page.followers.map((entry) => entry.node.entityId));
        if (!page.page_info.has_next_page || page.page_info.end_cursor === null) break;
        args = { node_id: page.node_id, cursor: page.page_info.end_cursor };
      }
      expect(seen).toHaveLength(30);
      expect(new Set(seen).size).toBe(30);

      const ledger = await readLedger(key.id);
      const charged = ledger.usage.filter((row) => row.status === 200);
      expect(charged).toHaveLength(4);
      expect(sumCharged(ledger.usage)).toBe(2 * 1 + 2 * 2);
      expect(ledger.creditsRemaining).toBe(10_000 - 6);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});
