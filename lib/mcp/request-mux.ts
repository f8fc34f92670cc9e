import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * An SDK transport that carries many HTTP exchanges to one long-lived SDK `Server`: each request
 * goes in under an id of its own (callers' ids collide: every client starts at 1) and its
 * response comes back under the caller's id, as JSON text. Messages the server sends that answer
 * no waiting request (notifications, progress) have no stream to go to in JSON-response mode and
 * are dropped, as the SDK's own transport drops them in that mode.
 *
 * A tool answer's structuredContent may have been parsed from a JSON text its handler still holds
 * (a lookup's record): offered under the request's id (`offerStructuredJson`), that text is sent
 * in its place, as /v1 splices a record into its envelope, instead of serialising it again.
 */
type Waiting = { callerId: RequestId; answer: (json: string) => void; structuredJson?: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-RPC response as text, under the caller's id, with `structuredJson` as its result's structuredContent when given. */
export const responseText = (message: JSONRPCMessage, callerId: RequestId, structuredJson?: string): string => {
  const result = "result" in message ? message.result : undefined;
  if (structuredJson === undefined || !isObject(result) || !isObject(result.structuredContent)) return JSON.stringify({ ...message, id: callerId });
  const { structuredContent: _parsed, ...rest } = result;
  const head = JSON.stringify(rest);
  const structured = `"structuredContent":${structuredJson}}`;
  const resultText = head === "{}" ? `{${structured}` : `${head.slice(0, -1)},${structured}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(callerId)},"result":${resultText}}`;
};

export class RequestMuxTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];

  private nextId = 0;
  private readonly waiting = new Map<RequestId, Waiting>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.waiting.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || message.id === undefined || !("result" in message || "error" in message)) return;
    const waiting = this.waiting.get(message.id);
    if (waiting === undefined) return;
    this.waiting.delete(message.id);
    waiting.answer(responseText(message, waiting.callerId, waiting.structuredJson));
  }

  /** The JSON text the structuredContent of request `id`'s answer was parsed from (see above). */
  offerStructuredJson(id: RequestId, json: string): void {
    const waiting = this.waiting.get(id);
    if (waiting !== undefined) waiting.structuredJson = json;
  }

  /** Hands one request to the server and resolves with its response as JSON text, under the request's own id. */
  exchange(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<string> {
    this.nextId += 1;
    const id = this.nextId;
    return new Promise((resolve) => {
      this.waiting.set(id, { callerId: request.id, answer: resolve });
      this.onmessage?.({ ...request, id }, extra);
    });
  }
}

/**
 * The first id that two requests of a JSON-RPC batch share, if any. Their answers could not be
 * told apart (a response names only its request's id), so such a batch is refused before any of
 * its calls runs: answering one and charging both is what would happen otherwise. 1 and "1" are
 * different ids; notifications (no id) and responses are not requests.
 */
export const duplicateRequestId = (batch: readonly unknown[]): RequestId | undefined => {
  const seen = new Set<RequestId>();
  for (const message of batch) {
    if (!isObject(message) || typeof message.method !== "string") continue;
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") continue;
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
};
