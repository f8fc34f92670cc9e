import http from "node:http";
import net from "node:net";

/**
 * HTTP below fetch: fetch normalises request lines, refuses TRACE and CONNECT, and decodes
 * compressed bodies. The front's tests need the bytes as they cross the socket.
 */
export type RawAnswer = {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as sent (still compressed, when it was). */
  body: Buffer;
};

/** One request with node:http: the path as given, no decompression. */
export const rawGet = (
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const request = http.request(
      { host: url.hostname, port: url.port, path, method: options.method ?? "GET", headers: options.headers ?? {}, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end();
  });

export type WireAnswer = {
  /** The status line, e.g. "HTTP/1.1 405 Method Not Allowed"; "" when the server closed without one. */
  statusLine: string;
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  /** What followed the head (chunked bodies are left as they are). */
  body: string;
};

/** Writes `text` to a fresh connection and reads until the server closes it (or 10 s pass). */
export const wireExchange = (baseUrl: string, text: string): Promise<WireAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on("connect", () => socket.write(text));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("latin1");
      const headEnd = raw.indexOf("\r\n\r\n");
      const head = (headEnd === -1 ? raw : raw.slice(0, headEnd)).split("\r\n");
      const statusLine = head[0] ?? "";
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({
        statusLine,
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: headEnd === -1 ? "" : raw.slice(headEnd + 4),
      });
    });
  });

/** A request head with `Connection: close`, so the exchange ends with the answer. */
export const requestHead = (requestLine: string, headers: Record<string, string>): string =>
  `${requestLine}\r\n${Object.entries({ ...headers, Connection: "close" })
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n")}\r\n\r\n`;

export type SocketAnswer = { status: number; headers: Map<string, string>; body: Buffer };

/**
 * Sends `text` and half-closes the connection at once (FIN after the request, as a shell pipe
 * that closes stdin does), then reads until the server closes. The body is the exact bytes that
 * followed the head, cut to Content-Length.
 */
export const halfClosedExchange = (baseUrl: string, text: string): Promise<SocketAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on("connect", () => socket.end(text));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf("\r\n\r\n");
      const head = (headEnd === -1 ? raw : raw.subarray(0, headEnd)).toString("latin1").split("\r\n");
      const headers = new Map<string, string>();
      for (const line of head.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const body = headEnd === -1 ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
      const length = Number(headers.get("content-length") ?? body.length);
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "")?.[1] ?? 0), headers, body: body.subarray(0, length) });
    });
  });

/** Sends `text` and resets the connection (TCP RST) as soon as it is written: a client gone before its answer. */
export const sendThenReset = (baseUrl: string, text: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on("error", reject);
    socket.on("close", () => resolve());
    socket.on("connect", () => socket.write(text, () => socket.resetAndDestroy()));
  });
