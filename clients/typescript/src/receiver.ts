import http from "node:http";
import type { AddressInfo } from "node:net";
import { DELIVERY_HEADER, SIGNATURE_HEADER, verifyWebhook, type BatchFinishedEvent, type WebhookEvent } from "./webhooks.js";

/**
 * A small webhook endpoint for scripts (Node only: `@social-lookup/client/receiver`): it answers
 * each POST with 204 when the signature is genuine and 401 when it is not (a forged delivery is
 * never handed on), drops repeated deliveries (the server retries with the same delivery id), and
 * lets a batch wait end the moment its `batch.finished` arrives:
 *
 *   const receiver = await startWebhookReceiver({ secret, host: "0.0.0.0", port: 8080 });
 *   const batch = await client.batches.create({ operation, inputs, webhookUrl: "https://me.example/hooks" });
 *   await batch.wait({ finished: receiver.batchFinished(batch.id) });
 *
 * The server delivers to public addresses only, unless its operator allows more.
 */
export type WebhookReceiverOptions = {
  /** The key's signing secret ("whsec_…", shown with the key's alerts in the console). */
  secret: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (see `url`). */
  port?: number;
  /** The largest body accepted (default 1 MiB). */
  maxBodyBytes?: number;
};

export type WebhookReceiver = {
  /** http://host:port/ as bound. */
  readonly url: string;
  /** Genuine deliveries, in arrival order. */
  readonly events: readonly WebhookEvent[];
  /** Deliveries refused for their signature. */
  readonly refused: number;
  /** The first genuine event (already received, or to come) that `matches`. */
  next(matches?: (event: WebhookEvent) => boolean, options?: { signal?: AbortSignal }): Promise<WebhookEvent>;
  /** The batch's `batch.finished` event. */
  batchFinished(batchId: string, options?: { signal?: AbortSignal }): Promise<BatchFinishedEvent>;
  close(): Promise<void>;
};

type Waiter = { matches: (event: WebhookEvent) => boolean; resolve: (event: WebhookEvent) => void };

const readBody = (request: http.IncomingMessage, limit: number): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(null);
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });

export const startWebhookReceiver = async (options: WebhookReceiverOptions): Promise<WebhookReceiver> => {
  const events: WebhookEvent[] = [];
  const deliveries = new Set<string>();
  let waiters: Waiter[] = [];
  let refused = 0;
  const limit = options.maxBodyBytes ?? 1024 * 1024;

  const accept = (event: WebhookEvent) => {
    events.push(event);
    const ready = waiters.filter((waiter) => waiter.matches(event));
    waiters = waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve(event);
  };

  const server = http.createServer((request, response) => {
    if (request.method !== "POST") {
      response.writeHead(405, { Allow: "POST" }).end();
      return;
    }
    void readBody(request, limit).then(
      async (body) => {
        if (body === null) {
          response.writeHead(413).end();
          return;
        }
        const signature = request.headers[SIGNATURE_HEADER];
        try {
          const event = await verifyWebhook({ secret: options.secret, body: new Uint8Array(body), signature: Array.isArray(signature) ? signature[0] : signature });
          const delivery = request.headers[DELIVERY_HEADER];
          const deliveryId = Array.isArray(delivery) ? delivery[0] : delivery;
          if (deliveryId === undefined || !deliveries.has(deliveryId)) {
            if (deliveryId !== undefined) deliveries.add(deliveryId);
            accept(event);
          }
          response.writeHead(204).end();
        } catch {
          refused += 1;
          response.writeHead(401).end();
        }
      },
      () => response.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  const next = (matches: (event: WebhookEvent) => boolean = () => true, waitOptions: { signal?: AbortSignal } = {}): Promise<WebhookEvent> => {
    const found = events.find(matches);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { matches, resolve };
      waiters.push(waiter);
      waitOptions.signal?.addEventListener(
        "abort",
        () => {
          waiters = waiters.filter((other) => other !== waiter);
          reject(waitOptions.signal?.reason);
        },
        { once: true },
      );
    });
  };

  return {
    url: `http://${host}:${address.port}/`,
    get events() {
      return events;
    },
    get refused() {
      return refused;
    },
    next,
    batchFinished: async (batchId, waitOptions) =>
      (await next((event) => event.event === "batch.finished" && event.batchId === batchId, waitOptions)) as BatchFinishedEvent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
