import type { Redis } from "ioredis";
import { log } from "@/lib/log";
import { attachKeyChangeTransport } from "./events";

/**
 * Key changes across instances over Redis pub/sub: a revocation on one instance drops the
 * cached key on every other within milliseconds (each instance's key cache also expires within
 * one second, so a missed message still cannot keep a revoked key alive for longer).
 */
const CHANNEL = "social-lookup:key-changed";
const ALL = "*";

export const connectKeyChangesOverRedis = (publisher: Redis, subscriber: Redis): void => {
  const notifyLocal = attachKeyChangeTransport((keyId) => {
    publisher.publish(CHANNEL, keyId ?? ALL).catch((error: unknown) => {
      log.warn("key change not published (the 1 s key cache still bounds staleness)", { err: error });
    });
  });
  subscriber.on("message", (channel: string, message: string) => {
    if (channel === CHANNEL) notifyLocal(message === ALL ? null : message);
  });
  subscriber.subscribe(CHANNEL).catch((error: unknown) => {
    log.warn("could not subscribe to key changes", { err: error });
  });
};
