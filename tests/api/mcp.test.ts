import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Ajv from "ajv";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { demoFixtures } from "@/lib/demo/fixtures";
import { MCP_MAX_BYTES } from "@/lib/mcp/fit";
import { MCP_MAX_BODY_BYTES } from "@/lib/mcp/http";
import { registry } from "@/lib/operations";
import { consoleClient } from "./console-client";
import { readKeyLedger, type ApiTarget, type IssuedKey } from "./harness";
import { contractMessages as messages } from "./http";

/**
 * /mcp: the lookups as MCP tools (Streamable HTTP, stateless), paid with the same keys. Driven by
 * the SDK's own Client, as an agent's MCP client would.
 */
const targets = inject("apiTargets");

const LOOKUP_TOOLS = ["event_details", "event_details_id", "followers", "get_user_publications"];
const BATCH_TOOLS = ["start_batch", "batch_status", "batch_results"];

const connect = async (target: ApiTarget, key: IssuedKey): Promise<Client> => {
  const client = new Client({ name: "api-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", target.baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${key.token}` } },
  });
  await client.connect(transport);
  return client;
};

const textOf = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");

const callTool = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

/** A new analyst (allowance 1000) whose new console key pays an agent: its console client and session, the key, the agent. */
const agentOfNewAnalyst = async (target: ApiTarget, label: string, credits: number, qpsLimit: number) => {
  const site = consoleClient(target);
  const analyst = await site.analyst(await site.admin(), label, 1000);
  const key = await site.consoleKey(analyst, credits, qpsLimit);
  const agent = await connect(target, { ...target.keys.mcp, token: key.token });
  return { site, analyst, key, agent };
};

describe.each(targets)("$kind server", (target: ApiTarget) => {
  describe("POST /mcp", () => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(target, target.keys.mcp);
    });
    afterAll(async () => {
      await client.close();
    });

    it("lists one tool per operation plus account_balance, with valid JSON Schemas and read-only annotations", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...LOOKUP_TOOLS, "account_balance", ...BATCH_TOOLS].sort());
      const ajv = new Ajv({ strict: false });
      for (const tool of tools) {
        expect(ajv.validateSchema(tool.inputSchema), `${tool.name} input`).toBe(true);
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(tool.name !== "start_batch");
        if (BATCH_TOOLS.includes(tool.name)) continue;
        expect(tool.outputSchema, `${tool.name} output`).toBeDefined();
        expect(ajv.validateSchema(tool.outputSchema ?? {}), `${tool.name} output`).toBe(true);
        if (tool.name !== "account_balance") {
          expect(tool.annotations?.openWorldHint).toBe(true);
          expect(tool.description).toMatch(/Costs \d+ credits? per successful call/);
        } else {
          expect(tool.description).toMatch(/Free/);
        }
      }
      const followers = tools.find((tool) => tool.name === "followers");
      expect(Object.keys(followers?.inputSchema.properties ?? {})).toEqual(["userid", "node_id", "cursor"]);
    });

    it("answers each lookup tool with structuredContent, charges its cost once and records one usage row", async () => {
      const calls: [string, Record<string, unknown>, number][] = [
        ["event_details", { url: "https://events.demo.test/events/1000000000000001/" }, 4],
        ["event_details_id", { event_id: "1000000000000001" }, 4],
        ["followers", { userid: "2000000001" }, 2],
        ["get_user_publications", { urn: "urn:li:member:3000000001", page: 2 }, 1],
      ];
      const before = (await readKeyLedger(target, target.keys.mcp.id)).creditsRemaining;
      for (const [name, args] of calls) {
        const result = await callTool(client, name, args);
        expect(result.isError ?? false, textOf(result)).toBe(false);
        expect(result.structuredContent).toBeTypeOf("object");
        expect(textOf(result)).toMatch(/Charged \d+ credits/);
      }
      const followers = await callTool(client, "followers", { userid: "2000000001" });
      const page = followers.structuredContent as { followers: unknown[]; node_id: string; page_info: { end_cursor: string } };
      expect(page.followers).toHaveLength(25);
      expect(textOf(followers)).toContain(`"node_id":"${page.node_id}"`);
      expect(textOf(followers)).toContain(page.page_info.end_cursor);

      const ledger = await readKeyLedger(target, target.keys.mcp.id);
      const spent = calls.reduce((sum, [, , cost]) => sum + cost, 0) + 2;
      expect(ledger.creditsRemaining).toBe(before - spent);
      const mcpRows = ledger.usage.filter((row) => row.channel === "mcp");
      expect(mcpRows.map((row) => `${row.operation} ${row.status}`).sort()).toEqual(
        [...calls.map(([name]) => `${name} 200`), "followers 200"].sort(),
      );
    });

    it("sends each lookup's record as /v1 does, field for field, on the plain path and through the SDK's own transport", async () => {
      const key = target.keys.mcpSameAsV1;
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${key.token}` };
      const call = (name: string, args: Record<string, string>) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
      const calls: [string, Record<string, string>][] = [
        ["event_details_id", { event_id: "1000000000000001" }],
        ["followers", { userid: "2000000001" }],
        ["get_user_publications", { urn: "urn:li:member:3000000001", page: "2" }],
      ];
      for (const [name, args] of calls) {
        const operation = registry.find((candidate) => candidate.id === name);
        const v1 = await fetch(`${target.baseUrl}${operation?.path}?${new URLSearchParams(args)}`, { headers: { Authorization: `Bearer ${key.token}` } });
        expect(v1.status).toBe(200);
        const { data } = (await v1.json()) as { data: unknown };
        const plain = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body: JSON.stringify(call(name, args)) });
        const plainBody = (await plain.json()) as { jsonrpc: string; id: number; result: { structuredContent: unknown } };
        expect(plainBody).toMatchObject({ jsonrpc: "2.0", id: 1 });
        expect(plainBody.result.structuredContent, name).toEqual(data);
        // A JSON-RPC batch goes through the SDK's transport, which serialises the answer itself.
        const batch = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body: JSON.stringify([call(name, args)]) });
        type Answer = { result: { structuredContent: unknown } };
        const answered = (await batch.json()) as Answer | Answer[];
        const viaSdk = Array.isArray(answered) ? answered[0] : answered;
        expect(viaSdk?.result.structuredContent, name).toEqual(data);
      }
    });

    it("answers bad input with isError and the contract's 400 message, charged nothing", async () => {
      const result = await callTool(client, "event_details_id", { event_id: "not-digits" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`${messages.invalid("event_id")}.`);
      expect(textOf(result)).toContain("nothing was charged");
      const missing = await callTool(client, "get_user_publications", {});
      expect(textOf(missing)).toContain(messages.missing("urn"));
    });

    it("answers a not-found record with isError and the operation's message", async () => {
      const result = await callTool(client, "event_details_id", { event_id: "9999999999999999" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("Event not found");
    });

    it("tells a poor key what it has and what the tool costs, and charges nothing", async () => {
      const poor = await connect(target, target.keys.mcpPoor);
      try {
        const result = await callTool(poor, "event_details_id", { event_id: "1000000000000001" });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain(`${messages.quota}: 3 credits left, this tool costs 4; top up on the Keys page`);
        const balance = await callTool(poor, "account_balance", {});
        expect(balance.isError ?? false).toBe(false);
        expect(balance.structuredContent).toMatchObject({ key: { credits_remaining: 3 } });
      } finally {
        await poor.close();
      }
    });

    it("answers HTTP 401 before any MCP exchange without a key or with a bad one", async () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
      const none = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body });
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await none.json()).toMatchObject({ error: { message: messages.keyMissing } });
      const bad = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers: { ...headers, Authorization: "Bearer nope" }, body });
      expect(bad.status).toBe(401);
      expect(await bad.json()).toMatchObject({ error: { message: messages.keyInvalid } });
    });

    it("refuses another site's browser origin and methods other than POST", async () => {
      const headers = {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${target.keys.mcp.token}`,
      };
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      const foreign = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers: { ...headers, Origin: "http://evil.example" }, body });
      expect(foreign.status).toBe(403);
      const get = await fetch(`${target.baseUrl}/mcp`, { headers });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
    });

    it(`refuses a body over ${MCP_MAX_BODY_BYTES} bytes (413) and one that is not JSON (400) before any exchange, charging nothing`, async () => {
      const headers = {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${target.keys.mcp.token}`,
      };
      const post = (body: string) => fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body });
      /** A paid tool call padded with an extra argument to `bytes` bytes in all. */
      const paddedCall = (bytes: number) => {
        const call = (padding: string) =>
          JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "event_details_id", arguments: { event_id: "1000000000000001", padding } } });
        return call("x".repeat(bytes - call("").length));
      };
      const creditsLeft = async () => ((await callTool(client, "account_balance", {})).structuredContent as { key: { credits_remaining: number } }).key.credits_remaining;
      const before = await creditsLeft();

      const oversize = await post(paddedCall(MCP_MAX_BODY_BYTES + 1));
      expect(oversize.status).toBe(413);
      expect(await oversize.json()).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: `Request too large: at most ${MCP_MAX_BODY_BYTES} bytes.` }, id: null });
      const broken = await post(paddedCall(1000).slice(0, -1));
      expect(broken.status).toBe(400);
      expect(await broken.json()).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON." }, id: null });
      expect(await creditsLeft()).toBe(before);

      // At the limit the call is answered: the bound is the body's size, not the request's kind.
      const atLimit = await post(paddedCall(MCP_MAX_BODY_BYTES));
      expect(atLimit.status).toBe(200);
      expect(await atLimit.json()).toMatchObject({ jsonrpc: "2.0", id: 7, result: expect.any(Object) });
    });

    it("answers concurrent callers that reuse one JSON-RPC id each with its own result, under that id", async () => {
      const headers = {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${target.keys.mcp.token}`,
        "Mcp-Protocol-Version": "2025-06-18",
      };
      const post = (id: number | string, method: string, params?: unknown) =>
        fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
      const calls = Array.from({ length: 12 }, (_, index) =>
        index % 2 === 0 ? post(1, "tools/list") : post(1, "tools/call", { name: "account_balance", arguments: {} }),
      );
      const answers = await Promise.all(calls);
      for (const [index, answer] of answers.entries()) {
        expect(answer.status).toBe(200);
        const body = (await answer.json()) as { id: unknown; result: { tools?: unknown[]; structuredContent?: unknown } };
        expect(body.id).toBe(1);
        if (index % 2 === 0) expect(body.result.tools?.length).toBeGreaterThan(LOOKUP_TOOLS.length);
        else expect(body.result.structuredContent).toMatchObject({ key: { credits_remaining: expect.any(Number) } });
      }
      const named = await post("call-a", "ping");
      expect(await named.json()).toEqual({ jsonrpc: "2.0", id: "call-a", result: {} });
      const unknown = await post(7, "no/such-method");
      expect(await unknown.json()).toMatchObject({ id: 7, error: { code: -32601 } });
    });

    it("leaves initialize, notifications, batches and refused headers to the SDK's transport, with its statuses", async () => {
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${target.keys.mcp.token}` };
      const post = (body: unknown, extra: Record<string, string> = {}) =>
        fetch(`${target.baseUrl}/mcp`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      const init = await post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      expect(init.status).toBe(200);
      expect(init.headers.get("mcp-session-id")).toBeNull();
      expect(await init.json()).toMatchObject({ id: 0, result: { serverInfo: { name: "social-lookup" }, capabilities: { tools: {} } } });
      const notification = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
      expect(notification.status).toBe(202);
      const batch = await post([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ]);
      expect(batch.status).toBe(200);
      const batchBody = (await batch.json()) as { id: number }[];
      expect(batchBody.map((answer) => answer.id).sort()).toEqual([1, 2]);
      const ping = { jsonrpc: "2.0", id: 3, method: "ping" };
      expect((await post(ping, { Accept: "application/json" })).status).toBe(406);
      expect((await post(ping, { "Content-Type": "text/plain" })).status).toBe(415);
      expect((await post(ping, { "Mcp-Protocol-Version": "1999-01-01" })).status).toBe(400);
      expect((await post({ jsonrpc: "2.0", id: 4 })).status).toBe(400);
    });

    it("describes the API, the MCP server, costs and limits in /llms.txt", async () => {
      const answer = await fetch(`${target.baseUrl}/llms.txt`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^text\/markdown/);
      const text = await answer.text();
      expect(text).toMatch(/^# Social Lookup\n/);
      expect(text).toContain(`${target.publicUrl}/mcp`);
      for (const [path, tool, cost] of [
        ["/v1/eventsite/event_details", "event_details", "4 credits"],
        ["/v1/eventsite/event_details_id", "event_details_id", "4 credits"],
        ["/v1/pinsite/followers", "followers", "2 credits"],
        ["/v1/jobsite/get_user_publications", "get_user_publications", "1 credit"],
      ]) {
        expect(text).toMatch(new RegExp(`\`GET ${path}\` \\(MCP tool \`${tool}\`\\):.*${cost} per found record`));
      }
      expect(text).toContain("<YOUR_API_KEY>");
      expect(text).not.toContain(target.keys.mcp.token);
    });

    it("labels each usage row with its channel (api, console, mcp) and the request log filters by it", async () => {
      const client = consoleClient(target);
      const admin = await client.admin();
      const analyst = await client.analyst(admin, "channels", 1000);
      const key = await client.consoleKey(analyst, 100, 100);
      const urn = "urn:li:member:3000000001";
      const v1 = await fetch(`${target.baseUrl}/v1/jobsite/get_user_publications?urn=${encodeURIComponent(urn)}`, {
        headers: { Authorization: `Bearer ${key.token}` },
      });
      expect(v1.status).toBe(200);
      await v1.arrayBuffer();
      const fromConsole = await client.api(analyst, "GET", `/api/console/lookup/get_user_publications?urn=${encodeURIComponent(urn)}&page=2`);
      expect(fromConsole.status, fromConsole.text).toBe(200);
      const agent = await connect(target, { ...target.keys.mcp, token: key.token });
      try {
        const result = await callTool(agent, "get_user_publications", { urn, page: 3 });
        expect(result.isError ?? false, textOf(result)).toBe(false);
      } finally {
        await agent.close();
      }
      for (const [channel, page] of [["api", null], ["console", "2"], ["mcp", "3"]] as const) {
        const log = await client.api(analyst, "GET", `/api/usage/events?keyId=${key.id}&channel=${channel}`);
        expect(log.status, log.text).toBe(200);
        const { events } = log.body as { events: { channel: string; paramsSummary: string }[] };
        expect(events.map((event) => event.channel), channel).toEqual([channel]);
        if (page !== null) expect(events[0]?.paramsSummary).toContain(`page=${page}`);
      }
      const all = await client.api(analyst, "GET", `/api/usage/events?keyId=${key.id}`);
      expect((all.body as { events: unknown[] }).events).toHaveLength(3);
      const bad = await client.api(analyst, "GET", `/api/usage/events?keyId=${key.id}&channel=fax`);
      expect(bad.status).toBe(400);
    });

    it("starts a batch, follows it and reads its results in pages, paid by the key that started it", async () => {
      const { site: client, analyst, key, agent } = await agentOfNewAnalyst(target, "mcp-batch", 100, 100);
      try {
        const started = await callTool(agent, "start_batch", {
          operation: "event_details_id",
          inputs: ["1000000000000001", "1000000000000002", "9999999999999999", "not-an-id"],
        });
        expect(started.isError ?? false, textOf(started)).toBe(false);
        const created = started.structuredContent as { id: string; total: number; rejected: { input: string }[] };
        expect(created.total).toBe(3);
        expect(created.rejected.map((entry) => entry.input)).toEqual(["not-an-id"]);

        let status: { status: string; done: number; creditsSpent: number } = { status: "queued", done: 0, creditsSpent: 0 };
        for (let attempt = 0; attempt < 120 && status.status !== "done"; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const polled = await callTool(agent, "batch_status", { id: created.id });
          if (polled.isError) continue; // a 429 while the runner uses the key's budget
          status = polled.structuredContent as typeof status;
        }
        expect(status).toMatchObject({ status: "done", done: 3, creditsSpent: 8 });

        const first = await callTool(agent, "batch_results", { id: created.id, limit: 1 });
        expect(first.isError ?? false, textOf(first)).toBe(false);
        const page = first.structuredContent as { records: { event: { event_id: string } }[]; nextOffset: number | null };
        expect(page.records).toHaveLength(1);
        expect(page.nextOffset).toBe(1);
        expect(textOf(first)).toContain(`"offset":1`);
        const second = await callTool(agent, "batch_results", { id: created.id, offset: 1, limit: 10 });
        const rest = second.structuredContent as { records: unknown[]; nextOffset: number | null };
        expect(rest.records).toHaveLength(1);
        expect(rest.nextOffset).toBeNull();

        const other = await connect(target, target.keys.mcp);
        try {
          const foreign = await callTool(other, "batch_status", { id: created.id });
          expect(foreign.isError).toBe(true);
        } finally {
          await other.close();
        }
      } finally {
        await agent.close();
      }
      const log = await client.api(analyst, "GET", `/api/usage/events?keyId=${key.id}&channel=batch`);
      const { events } = log.body as { events: { status: number; creditsCharged: number }[] };
      expect(events.filter((event) => event.status === 200).map((event) => event.creditsCharged)).toEqual([4, 4]);
    });

    it("refuses a JSON-RPC batch whose requests share an id with -32600 before any of them runs, charging nothing", async () => {
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${target.keys.mcp.token}` };
      const paid = (id: number | string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "event_details_id", arguments: { event_id: "1000000000000001" } } });
      const creditsLeft = async () => ((await callTool(client, "account_balance", {})).structuredContent as { key: { credits_remaining: number } }).key.credits_remaining;
      const before = await creditsLeft();
      const refused = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body: JSON.stringify([paid(1), paid(1)]) });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32600, message: "Invalid Request: two requests of this batch have the id 1; give each its own id. Nothing was run." },
        id: null,
      });
      expect(await creditsLeft()).toBe(before);
      // 1 and "1" are two ids: both calls run, each answered under its own id.
      const distinct = await fetch(`${target.baseUrl}/mcp`, { method: "POST", headers, body: JSON.stringify([paid(1), paid("1")]) });
      expect(distinct.status).toBe(200);
      const answers = (await distinct.json()) as { id: unknown }[];
      expect(answers.map((answer) => typeof answer.id).sort()).toEqual(["number", "string"]);
      expect(await creditsLeft()).toBe(before - 8);
    });

    it("refuses start_batch over the open-batch quota, or for an operation the key may not call, with isError and the reason", async () => {
      const { site, analyst, key, agent } = await agentOfNewAnalyst(target, "mcp-batch-quota", 100, 50);
      const open: string[] = [];
      try {
        // Unknown event ids: free 404s, many enough that every batch is still open at the end.
        const inputs = (from: number) => Array.from({ length: 300 }, (_, index) => String(8_300_000_000_000_000 + from + index));
        // The batches' own lookups use the key's per-second budget too: a start refused for it is made again.
        const start = async (args: Record<string, unknown>): Promise<CallToolResult> => {
          for (;;) {
            const result = await callTool(agent, "start_batch", args);
            if (!textOf(result).startsWith(messages.qps)) return result;
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        };
        for (let index = 0; index < 10; index += 1) {
          const started = await start({ operation: "event_details_id", inputs: inputs(1000 * index) });
          expect(started.isError ?? false, textOf(started)).toBe(false);
          open.push((started.structuredContent as { id: string }).id);
        }
        const refused = await start({ operation: "event_details_id", inputs: inputs(20_000) });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toContain(
          "You have 10 batches queued or running, the most one user may have (10). Wait for one to finish, or cancel one to make room. Nothing was charged.",
        );

        const limited = await site.api(analyst, "PATCH", `/api/keys/${key.id}`, { operations: ["followers"] });
        expect(limited.status, limited.text).toBe(200);
        const scoped = await start({ operation: "event_details_id", inputs: ["1000000000000001"] });
        expect(scoped.isError).toBe(true);
        expect(textOf(scoped)).toContain("apiKey is not allowed to call this operation. This key may not make this call");
      } finally {
        await agent.close();
        for (const id of open) {
          await fetch(`${target.baseUrl}/v1/batches/${id}/cancel`, { method: "POST", headers: { Authorization: `Bearer ${key.token}` } });
        }
      }
    });

    it("pages batch_results by whole records when a page is cut to size, nextOffset leading to every record once; refuses bad offset and limit by name", async () => {
      const { site, analyst, key, agent } = await agentOfNewAnalyst(target, "mcp-batch-pages", 1000, 200);
      try {
        const started = await callTool(agent, "start_batch", { operation: "event_details_id", inputs: [...demoFixtures.eventIds] });
        expect(started.isError ?? false, textOf(started)).toBe(false);
        const id = (started.structuredContent as { id: string }).id;
        let status = "queued";
        for (let attempt = 0; attempt < 240 && status !== "done"; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const polled = await callTool(agent, "batch_status", { id });
          if (!polled.isError) status = (polled.structuredContent as { status: string }).status;
        }
        expect(status).toBe("done");
        const all = await fetch(`${target.baseUrl}/v1/batches/${id}/results`, { headers: { Authorization: `Bearer ${key.token}` } });
        const allText = await all.text();
        // The 40 records are over what one answer may carry: a page of 100 has to be cut.
        expect(Buffer.byteLength(allText)).toBeGreaterThan(MCP_MAX_BYTES);

        type Page = { records: { event: { event_id: string } }[]; offset: number; nextOffset: number | null };
        const seen: string[] = [];
        let offset: number | null = 0;
        let pages = 0;
        while (offset !== null && pages < 10) {
          const result = await callTool(agent, "batch_results", { id, offset, limit: 100 });
          expect(result.isError ?? false, textOf(result)).toBe(false);
          const page = result.structuredContent as Page;
          expect(page.offset).toBe(offset);
          expect(page.records.length).toBeGreaterThan(0);
          seen.push(...page.records.map((record) => record.event.event_id));
          if (pages === 0) {
            expect(page.records.length).toBeLessThan(40);
            expect(page.nextOffset).toBe(page.records.length);
            expect(textOf(result)).toContain(`"offset":${page.records.length}`);
          }
          offset = page.nextOffset;
          pages += 1;
        }
        expect(offset).toBeNull();
        expect(seen).toEqual(allText.trim().split("\n").map((line) => (JSON.parse(line) as { event: { event_id: string } }).event.event_id));
        expect(new Set(seen).size).toBe(40);

        const refusals: [Record<string, unknown>, string][] = [
          [{ offset: 1e30 }, "offset must be a whole number from 0 to 1000000"],
          [{ offset: -5 }, "offset must be a whole number from 0 to 1000000"],
          [{ offset: 1.5 }, "offset must be a whole number from 0 to 1000000"],
          [{ offset: "10" }, "offset must be a whole number from 0 to 1000000"],
          [{ limit: 0 }, "limit must be a whole number from 1 to 100"],
          [{ limit: 101 }, "limit must be a whole number from 1 to 100"],
          [{ limit: 2.5 }, "limit must be a whole number from 1 to 100"],
          [{ limit: "5" }, "limit must be a whole number from 1 to 100"],
        ];
        for (const [args, message] of refusals) {
          const result = await callTool(agent, "batch_results", { id, ...args });
          expect(result.isError, JSON.stringify(args)).toBe(true);
          expect(textOf(result), JSON.stringify(args)).toContain(message);
        }
        const badCap = await callTool(agent, "start_batch", { operation: "event_details_id", inputs: ["1000000000000001"], maxCredits: 1.5 });
        expect(badCap.isError).toBe(true);
        expect(textOf(badCap)).toContain("Invalid parameter: maxCredits (maxCredits must be a whole number of credits)");
      } finally {
        await agent.close();
      }
    });

    it("charges exactly 20 of 60 concurrent 4-credit calls on an 80-credit key", async () => {
      const key = target.keys.mcpOverspend;
      const clients = await Promise.all(Array.from({ length: 6 }, () => connect(target, key)));
      try {
        const results = await Promise.all(
          Array.from({ length: 60 }, (_, index) =>
            callTool(clients[index % clients.length] as Client, "event_details_id", { event_id: "1000000000000001" }),
          ),
        );
        const served = results.filter((result) => !result.isError);
        expect(served).toHaveLength(20);
        expect(results.filter((result) => result.isError && textOf(result).startsWith(messages.quota))).toHaveLength(40);
      } finally {
        await Promise.all(clients.map((each) => each.close()));
      }
      const ledger = await readKeyLedger(target, key.id);
      expect(ledger.creditsRemaining).toBe(0);
      expect(ledger.usage.filter((row) => row.status === 200)).toHaveLength(20);
    });
  });
});
