import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * An SDK transport that carries many HTTP exchanges to one long-lived SDK `Server`: each request
 * goes in under an id of its own (callers' ids collide: every client starts at 1) and its
 * response comes back under the caller's id. Messages the server sends that answer no waiting
 * request (notifications, progress) have no stream to go to in JSON-response mode and are
 * dropped, as the SDK's own transport drops them in that mode.
 */
export class RequestMuxTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];

  private nextId = 0;
  private readonly waiting = new Map<RequestId, (message: JSONRPCMessage) => void>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.waiting.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || message.id === undefined || !("result" in message || "error" in message)) return;
    const answer = this.waiting.get(message.id);
    if (answer === undefined) return;
    this.waiting.delete(message.id);
    answer(message);
  }

  /** Hands one request to the server and resolves with its response, under the request's own id. */
  exchange(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCMessage> {
    this.nextId += 1;
    const id = this.nextId;
    return new Promise((resolve) => {
      this.waiting.set(id, (message) => resolve({ ...message, id: request.id } as JSONRPCMessage));
      this.onmessage?.({ ...request, id }, extra);
    });
  }
}
