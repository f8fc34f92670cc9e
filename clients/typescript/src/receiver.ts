import http from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_TOLERANCE_S, verifyWebhook, WebhookSignatureError, type BatchFinishedEvent, type WebhookEvent } from "./webhooks.js";

/**
 * A small webhook endpoint for scripts (Node only: `@social-lookup/client/receiver`): it answers
 * each POST with 204 when verifyWebhook accepts it and 401 when it does not (forged, altered, or
 * a timestamp more than 5 minutes off: a forged or replayed delivery is never handed on), hands on
 * each signed delivery id once (the server retries with the same id; a replay within the 5 minutes
 * repeats one), and lets a batch wait end the moment its `batch.finished` arrives:
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
  /** How far a delivery's timestamp may be from this clock, in seconds (default 300). */
  toleranceS?: number;
};

export type WebhookReceiver = {
  /** http://host:port/ as bound. */
  readonly url: string;
  /** Genuine deliveries, in arrival order. */
  readonly events: readonly WebhookEvent[];
  /** Deliveries refused: forged, altered or stale. */
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
  const toleranceS = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  // Delivery id → until when it is remembered (ms): a day past its latest timestamp, far longer
  // than the server retries and than a replay's timestamp stays within the tolerance.
  const deliveries = new Map<string, number>();
  const keepMs = Math.max(86_400_000, 2 * toleranceS * 1000);
  /** True the first time a delivery id is seen. */
  const remember = (deliveryId: string, sentAt: Date): boolean => {
    const nowMs = Date.now();
    for (const [id, until] of deliveries) if (until < nowMs) deliveries.delete(id);
    const first = !deliveries.has(deliveryId);
    deliveries.set(deliveryId, Math.max(deliveries.get(deliveryId) ?? 0, sentAt.getTime() + keepMs));
    return first;
  };
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
        try {
          const delivery = await verifyWebhook({ secret: options.secret, body: new Uint8Array(body), headers: request.headers, toleranceS });
          if (remember(delivery.deliveryId, delivery.sentAt)) accept(delivery.event);
          response.writeHead(204).end();
        } catch (error) {
          if (!(error instanceof WebhookSignatureError)) {
            response.writeHead(500).end();
            return;
          }
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
