import type http from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import {
  CallToolRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type JSONRPCRequest,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { authMessages } from "@/lib/api/errors";
import { clientIp } from "@/lib/auth/client-ip";
import type { AuthOutcome } from "@/lib/keys/authenticate";
import { log } from "@/lib/log";
import type { Registry } from "@/lib/operations";
import { batchTools, type BatchToolDeps } from "./batch-tools";
import { duplicateRequestId, RequestMuxTransport } from "./request-mux";
import { listed, toolsOf, type ToolDeps } from "./tools";

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (no session id, nothing
 * kept between requests), so any instance behind a load balancer answers any request. The bearer
 * key is checked before any MCP exchange: no key or a bad one is HTTP 401. JSON answers (no SSE
 * stream): every tool answers once.
 */
export { MCP_PATH } from "./http-path";

/** A JSON-RPC message larger than this is refused (a tool's arguments are a few short strings). */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

const SERVER_INFO = { name: "social-lookup", version: "1.0.0" } as const;

const INSTRUCTIONS =
  "Lookups of public records on three social sites: event details (by page URL or event id), a pin-board user's followers " +
  "(paged by cursor) and a professional profile's publications (paged by number). Each tool's description says what it " +
  "costs in credits; only a found record is charged. account_balance is free and tells how many credits are left.";

export type McpHandlerDeps = {
  registry: Registry;
  services: () => Promise<ToolDeps>;
  /** Origins allowed to call from a browser (the operator's CORS list); other browser origins are refused. */
  allowedOrigins: readonly string[];
  /** The batch tools' database and runner (lib/batches); without it there are none. */
  batches?: BatchToolDeps;
};

const jsonText = (response: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void => {
  const bytes = Buffer.from(text);
  response.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(bytes.length),
    "Cache-Control": "no-store",
  });
  response.end(bytes);
};

const rpcError = (response: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  jsonText(response, status, JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), headers);

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** What the SDK's transport reads of a request: method and the headers it checks (no body: it is parsed already). */
const TRANSPORT_HEADERS = ["accept", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"] as const;

const webRequestOf = (request: http.IncomingMessage): Request => {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = single(request.headers[name]);
    if (value !== undefined) headers.set(name, value);
  }
  return new Request("http://localhost/mcp", { method: "POST", headers });
};

/** The body, or null when it is larger than the limit (the rest is not read). */
const readBody = (request: http.IncomingMessage): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MCP_MAX_BODY_BYTES) {
        resolve(null);
        request.removeAllListeners("data");
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });

/** What a tool call needs of the HTTP exchange, carried to the SDK server as its auth info. */
const authInfoOf = (authorization: string, authenticated: AuthOutcome & { ok: true }, clientAddress: string): AuthInfo => ({
  token: authorization,
  clientId: authenticated.key.id,
  scopes: [],
  extra: { clientAddress, authenticated },
});

const clientAddressOf = (auth: AuthInfo | undefined): string => {
  const address = auth?.extra?.clientAddress;
  return typeof address === "string" ? address : "";
};

/** The key as the front authenticated it for this request (authInfoOf), passed on so it is not checked twice. */
const authenticatedOf = (auth: AuthInfo | undefined): AuthOutcome | undefined => {
  const outcome = auth?.extra?.authenticated as AuthOutcome | undefined;
  return outcome?.ok === true ? outcome : undefined;
};

const mediaTypeIsJson = (value: string | undefined): boolean => {
  const type = value?.split(";", 1)[0]?.trim().toLowerCase();
  return type === "application/json";
};

/**
 * A single JSON-RPC request (not `initialize`) whose headers the SDK's transport would accept
 * as they are: it goes to the long-lived server. Anything else — initialize, notifications,
 * batches, bad headers or messages — goes through a fresh SDK transport, which answers it (or
 * refuses it) with the SDK's own status and message.
 */
const directRequest = (request: http.IncomingMessage, message: unknown): JSONRPCRequest | null => {
  const accept = single(request.headers.accept) ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return null;
  if (!mediaTypeIsJson(single(request.headers["content-type"]))) return null;
  const version = single(request.headers["mcp-protocol-version"]);
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if (!isJSONRPCRequest(message) || message.method === "initialize") return null;
  return message;
};

export const createMcpHandler = (deps: McpHandlerDeps) => {
  const tools = [...toolsOf(deps.registry), ...(deps.batches ? batchTools(deps.registry, deps.batches) : [])];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listing = tools.map(listed);
  // The SDK builds a fresh Ajv per Server unless given one: one per handler, not per server.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  /** `offer`: where a tool answer may offer its structuredContent's JSON text (the long-lived server's transport). */
  const newServer = (offer?: (requestId: RequestId, json: string) => void): Server => {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const tool = byName.get(request.params.name);
      if (tool === undefined) {
        return { isError: true, content: [{ type: "text", text: `No tool named ${request.params.name}. Call tools/list for the tools.` }] };
      }
      const authorization = extra.authInfo?.token ?? "";
      return tool.call(request.params.arguments ?? {}, {
        authorization,
        clientAddress: clientAddressOf(extra.authInfo),
        deps: await deps.services(),
        authenticated: authenticatedOf(extra.authInfo),
        offerStructuredJson: offer === undefined ? undefined : (json) => offer(extra.requestId, json),
      });
    });
    return server;
  };

  // One server answers every plain request: building a server and a transport per call cost
  // several times the lookup itself. Its transport keeps no state between requests (no session).
  const direct = new RequestMuxTransport();
  const connected = newServer((requestId, json) => direct.offerStructuredJson(requestId, json)).connect(direct);
  // Awaited by every request (a failure answers 500 there); never an unhandled rejection here.
  connected.catch(() => undefined);

  /** Initialize, notifications, batches and anything the SDK refuses: its own transport, once. */
  const throughSdkTransport = async (request: http.IncomingMessage, response: http.ServerResponse, message: unknown, authInfo: AuthInfo) => {
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      // The body is read and parsed above: the transport gets the headers it checks and the message.
      const answer = await transport.handleRequest(webRequestOf(request), { parsedBody: message, authInfo });
      const bytes = Buffer.from(await answer.arrayBuffer());
      response.writeHead(answer.status, { ...Object.fromEntries(answer.headers), "Content-Length": String(bytes.length), "Cache-Control": "no-store" });
      response.end(bytes);
    } finally {
      await transport.close();
      await server.close();
    }
  };

  return async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
    if (request.method !== "POST") {
      rpcError(response, 405, -32000, "Method not allowed: send JSON-RPC messages with POST.", { Allow: "POST" });
      return;
    }
    const origin = single(request.headers.origin);
    if (origin !== undefined && !deps.allowedOrigins.includes(origin)) {
      // A web page of another site must not drive a user's agent key (DNS rebinding, CSRF).
      rpcError(response, 403, -32000, "Forbidden: this origin may not call the MCP server.");
      return;
    }
    const toolDeps = await deps.services();
    const authorization = single(request.headers.authorization) ?? null;
    const auth = await toolDeps.authenticator.authenticate(authorization);
    if (!auth.ok || authorization === null) {
      const message = auth.ok ? authMessages.key_missing : authMessages[auth.reason];
      rpcError(response, 401, -32001, message, { "WWW-Authenticate": 'Bearer realm="social-lookup"' });
      return;
    }
    const body = await readBody(request);
    if (body === null) {
      rpcError(response, 413, -32600, `Request too large: at most ${MCP_MAX_BODY_BYTES} bytes.`);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(body.toString("utf8"));
    } catch {
      rpcError(response, 400, -32700, "Parse error: the body is not JSON.");
      return;
    }
    const duplicate = Array.isArray(message) ? duplicateRequestId(message) : undefined;
    if (duplicate !== undefined) {
      rpcError(response, 400, -32600, `Invalid Request: two requests of this batch have the id ${JSON.stringify(duplicate)}; give each its own id. Nothing was run.`);
      return;
    }
    const authInfo = authInfoOf(authorization, auth, clientIp(request.headers));
    try {
      const plain = directRequest(request, message);
      if (plain === null) {
        await throughSdkTransport(request, response, message, authInfo);
        return;
      }
      await connected;
      jsonText(response, 200, await direct.exchange(plain, { authInfo }));
    } catch (error) {
      log.error("mcp request failed", { err: error });
      if (!response.headersSent) rpcError(response, 500, -32603, "Internal server error");
      else response.destroy();
    }
  };
};

export type McpHandler = ReturnType<typeof createMcpHandler>;
