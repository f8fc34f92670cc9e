import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { runAccount, type AccountDeps } from "@/lib/api/account";
import { runLookup, type PipelineDeps, type PipelineResult } from "@/lib/api/pipeline";
import type { AuthOutcome } from "@/lib/keys/authenticate";
import type { Operation, Registry } from "@/lib/operations";
import { accountDataSchema } from "@/lib/usage/account-schema";
import { dataSource, errorResult, readEnvelope, readRecord, successResult } from "./answers";
import type { Json } from "./fit";
import { inputSchemaOf, toolSchemaOf } from "./schemas";

/**
 * The MCP tools, derived from the operations registry: each operation is one tool (its id, its
 * parameters, its record), so a new operation is a new tool with no edit here. A tool call runs
 * the same pipeline as /v1 — the key, its per-second limit, its credits charged only on success,
 * one usage record — with the caller's own Authorization header.
 */
export type ToolDeps = PipelineDeps & AccountDeps;

/**
 * The caller's key and address (the front's, by TRUSTED_PROXY_HOPS): a key's allowlist applies to
 * agents too. `authenticated`: the key as the MCP front checked it for this request (not checked
 * twice). `offerStructuredJson`: where an answer may offer the JSON text its structuredContent was
 * parsed from, to be sent as it is instead of serialised again (lib/mcp/request-mux.ts).
 */
export type CallContext = {
  authorization: string;
  clientAddress: string;
  deps: ToolDeps;
  authenticated?: AuthOutcome;
  offerStructuredJson?: (json: string) => void;
};

export type McpTool = Tool & { call(args: Record<string, unknown>, context: CallContext): Promise<CallToolResult> };

const READ_ONLY = { readOnlyHint: true, openWorldHint: true } as const;

const credits = (count: number): string => `${count} credit${count === 1 ? "" : "s"}`;

const describeLookup = (operation: Operation): string => {
  const paging =
    operation.pageSize === null
      ? "one record"
      : `one page of up to ${operation.pageSize} entries; the answer says how to ask for the next page`;
  return (
    `${operation.summary} (${operation.label.site}): ${operation.label.lookedUpBy}. Returns ${paging} as structured data. ` +
    `Costs ${credits(operation.costCredits)} per successful call, from the key's credits. ` +
    `Free when nothing is found or the call fails (only a found record is charged).`
  );
};

/** The query a tool's arguments stand for: parameter names are the operation's, values strings. */
const queryOf = (operation: Operation, args: Record<string, unknown>): URLSearchParams => {
  const query = new URLSearchParams();
  for (const param of operation.params) {
    const value = args[param.name];
    if (value === undefined || value === null) continue;
    query.set(param.name, typeof value === "string" ? value : JSON.stringify(value));
  }
  return query;
};

const fail = (result: Pick<PipelineResult, "body" | "headers">, costCredits: number): CallToolResult =>
  errorResult(readEnvelope(result.body), {
    costCredits,
    creditsRemaining: result.headers["X-Credits-Remaining"],
    retryAfterS: result.headers["Retry-After"],
  });

const argsText = (query: URLSearchParams): string =>
  JSON.stringify(Object.fromEntries(query.entries()));

const lookupTool = (operation: Operation): McpTool => ({
  name: operation.id,
  title: operation.summary,
  description: describeLookup(operation),
  inputSchema: { type: "object", ...inputSchemaOf(operation) },
  outputSchema: { type: "object", ...toolSchemaOf(operation.record) },
  annotations: { title: operation.summary, ...READ_ONLY },
  call: async (args, { authorization, clientAddress, deps, authenticated, offerStructuredJson }) => {
    const query = queryOf(operation, args);
    const result = await runLookup(operation, { authorization, query, channel: "mcp", clientAddress, authenticated }, deps);
    if (result.status !== 200 || result.dataJson === undefined) return fail(result, operation.costCredits);
    // The record alone is read (for the summary, the next page and the size check); the envelope is not.
    const source = dataSource(result.dataJson, offerStructuredJson);
    const data = readRecord(source);
    const charged = result.headers["X-Credits-Charged"] ?? String(operation.costCredits);
    const left = result.headers["X-Credits-Remaining"];
    const what = operation.batch?.summary(data) || operation.label.short;
    const summary = `${operation.label.short}: ${what}. Charged ${charged} credits${left === undefined ? "" : `, ${left} left`}.`;
    const next = operation.batch?.nextPage?.(data, query) ?? null;
    const more = next === null ? null : `More: call ${operation.id} with ${argsText(next)}.`;
    return successResult(data, summary, more, source);
  },
});

const accountTool: McpTool = {
  name: "account_balance",
  title: "Account balance",
  description:
    "The calling key's credits left, credits granted, per-second limit, daily cap and spend today and this month. Free: it charges nothing and writes no usage record.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: { type: "object", ...toolSchemaOf(accountDataSchema) },
  annotations: { title: "Account balance", readOnlyHint: true, openWorldHint: false },
  call: async (_args, { authorization, clientAddress, deps, authenticated }) => {
    const result = await runAccount({ authorization, clientAddress, authenticated }, deps);
    if (result.status !== 200) return fail(result, 0);
    const envelope = readEnvelope(result.body);
    const data = envelope.data as Json;
    return successResult(data, `Credits left: ${result.headers["X-Credits-Remaining"] ?? "?"}.`, null);
  },
};

export const toolsOf = (registry: Registry): McpTool[] => [...registry.map(lookupTool), accountTool];

/** A tool as tools/list shows it: everything but the call. */
export const listed = ({ call: _call, ...tool }: McpTool): Tool => tool;
