import type http from "node:http";
import { metrics } from "@/lib/metrics/registry";
import { plainAddress } from "./client-address";

/**
 * How long a connection may take and how many one client may hold (docs/security.md): a request
 * head must arrive within `headersTimeoutMs` (node answers 408 and closes), a whole request
 * within `requestTimeoutMs`, an idle keep-alive connection lasts `keepAliveTimeoutMs`; at most
 * `maxConnections` connections are open per instance (node closes the next at once) and, when
 * clients connect directly (no trusted proxy: the socket peer is the client), at most
 * `maxPerAddress` per address — a connection beyond is closed at once, before a byte is read,
 * while other addresses keep being served. Behind a proxy every connection comes from the proxy,
 * so the per-address cap would cap everyone together: it is off there.
 */
export type ConnectionLimits = {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** null: no per-address cap (clients arrive through a trusted proxy). */
  maxPerAddress: number | null;
};

/** node checks header and request deadlines on this tick (its default, 30 s, would let a slow head live 45 s). */
const CHECK_INTERVAL_MS = 1000;

/** The options of http.createServer that carry the limits. */
export const serverTimeouts = (limits: ConnectionLimits): Pick<http.ServerOptions, "headersTimeout" | "requestTimeout" | "keepAliveTimeout" | "connectionsCheckingInterval"> => ({
  headersTimeout: limits.headersTimeoutMs,
  requestTimeout: limits.requestTimeoutMs,
  keepAliveTimeout: limits.keepAliveTimeoutMs,
  connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.headersTimeoutMs),
});

/**
 * Applies the connection caps to a server, and counts what they do: the connections open now and
 * the ones closed at once (node's "drop" beyond maxConnections, or the per-address cap).
 */
export const limitConnections = (server: http.Server, limits: ConnectionLimits): void => {
  server.maxConnections = limits.maxConnections;
  const { maxPerAddress } = limits;
  const { openConnections, connectionRefusals } = metrics();
  server.on("drop", () => connectionRefusals.inc({ reason: "max_connections" }));
  const open = new Map<string, number>();
  // Before node's own listener: a refused connection never gets a parser.
  server.prependListener("connection", (socket) => {
    const address = plainAddress(socket.remoteAddress ?? "unknown");
    const count = open.get(address) ?? 0;
    if (maxPerAddress !== null && count >= maxPerAddress) {
      connectionRefusals.inc({ reason: "per_address" });
      socket.destroy();
      return;
    }
    openConnections.inc();
    if (maxPerAddress !== null) open.set(address, count + 1);
    socket.once("close", () => {
      openConnections.dec();
      if (maxPerAddress === null) return;
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
};
