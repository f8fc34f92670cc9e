import type http from "node:http";

/** A short text answer of the front's own (a refusal, a 404 outside Next): no page, no envelope. */
export const plain = (response: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void => {
  const body = Buffer.from(`${text}\n`);
  response.writeHead(status, {
    ...headers,
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": String(body.length),
    "X-Content-Type-Options": "nosniff",
  });
  response.end(body);
};
