import type { Queryable } from "@/lib/db/client";

/**
 * The kinds of webhook event the alert worker (webhooks.ts) delivers besides its own low-credit
 * alerts. Another domain registers its kind at startup (lib/jobs.ts wires it): its name, which
 * is the X-SocialLookup-Event header and the payload's `event`, and how it queues its new
 * deliveries. Deliveries are then the worker's: the same rows, signature, retries and log.
 */
export type WebhookEventKind = {
  readonly name: string;
  /**
   * Inserts one webhook_deliveries row (payload, key, url) per new event younger than maxAgeMs,
   * at most `limit`, never twice for one event; returns how many it inserted.
   */
  readonly queue: (db: Queryable, window: { maxAgeMs: number; limit: number }) => Promise<number>;
};

export type WebhookEvents = {
  register(kind: WebhookEventKind): void;
  /** In the order they were registered: the worker queues them in this order. */
  kinds(): readonly WebhookEventKind[];
};

export const createWebhookEvents = (): WebhookEvents => {
  const byName = new Map<string, WebhookEventKind>();
  return {
    register: (kind) => {
      if (byName.has(kind.name)) throw new Error(`webhook event ${kind.name} is registered twice`);
      byName.set(kind.name, kind);
    },
    kinds: () => [...byName.values()],
  };
};
