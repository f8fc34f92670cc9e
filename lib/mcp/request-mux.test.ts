import { describe, expect, it } from "vitest";
import { duplicateRequestId, RequestMuxTransport, responseText } from "./request-mux";

describe("responseText", () => {
  it("sends a result's structuredContent as the offered JSON text, under the caller's id, with the rest serialised", () => {
    const record = '{"followers": [{"id": "1"}, {"id": "2"}], "node_id": "N"}';
    const message = { jsonrpc: "2.0" as const, id: 7, result: { content: [{ type: "text", text: 'two "followers"' }], structuredContent: { followers: [null, null], node_id: "N" } } };
    const text = responseText(message, "caller-1", record);
    expect(JSON.parse(text)).toEqual({ jsonrpc: "2.0", id: "caller-1", result: { content: message.result.content, structuredContent: JSON.parse(record) } });
  });

  it("serialises the message as it is without an offered text, for an error, or for a result without structuredContent", () => {
    const error = { jsonrpc: "2.0" as const, id: 7, error: { code: -32602, message: "bad" } };
    expect(JSON.parse(responseText(error, 1, '{"a":1}'))).toEqual({ ...error, id: 1 });
    const plain = { jsonrpc: "2.0" as const, id: 7, result: { content: [], isError: true } };
    expect(JSON.parse(responseText(plain, 1, '{"a":1}'))).toEqual({ ...plain, id: 1 });
    const parsed = { jsonrpc: "2.0" as const, id: 7, result: { structuredContent: { a: 2 } } };
    expect(JSON.parse(responseText(parsed, 1))).toEqual({ ...parsed, id: 1 });
    expect(JSON.parse(responseText(parsed, 1, '{"a":1}'))).toEqual({ ...parsed, id: 1, result: { structuredContent: { a: 1 } } });
  });
});

describe("RequestMuxTransport", () => {
  it("gives concurrent requests that share the caller's id ids of their own, and each answer its offered text only", async () => {
    const transport = new RequestMuxTransport();
    const seen: number[] = [];
    transport.onmessage = (message) => {
      if (!("id" in message) || typeof message.id !== "number") return;
      const id = message.id;
      seen.push(id);
      if (id === 1) transport.offerStructuredJson(id, '{"n":"first"}');
      void transport.send({ jsonrpc: "2.0", id, result: { structuredContent: { n: `parsed ${id}` } } });
    };
    const request = { jsonrpc: "2.0" as const, id: 1, method: "tools/call" };
    const [first, second] = await Promise.all([transport.exchange(request, {}), transport.exchange(request, {})]);
    expect(seen).toEqual([1, 2]);
    expect(JSON.parse(first ?? "")).toEqual({ jsonrpc: "2.0", id: 1, result: { structuredContent: { n: "first" } } });
    expect(JSON.parse(second ?? "")).toEqual({ jsonrpc: "2.0", id: 1, result: { structuredContent: { n: "parsed 2" } } });
  });
});

describe("duplicateRequestId", () => {
  const request = (id: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "account_balance", arguments: {} } });

  it("names the first id two requests share", () => {
    expect(duplicateRequestId([request(1), request(2), request(1)])).toBe(1);
    expect(duplicateRequestId([request("a"), request("a")])).toBe("a");
  });

  it("finds none among distinct ids, notifications and responses; 1 and \"1\" are different ids", () => {
    expect(duplicateRequestId([request(1), request("1"), request(2)])).toBeUndefined();
    const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
    const answer = { jsonrpc: "2.0", id: 1, result: {} };
    expect(duplicateRequestId([request(1), notification, notification, answer])).toBeUndefined();
    expect(duplicateRequestId([])).toBeUndefined();
  });
});
