import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics/registry";
import { valueOf } from "@/tests/support/metric-deltas";
import { limitConnections, type ConnectionLimits } from "./connections";

/** The front's connection caps on a real server over loopback, seen through their metrics. */
const servers: http.Server[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const limits = (overrides: Partial<ConnectionLimits>): ConnectionLimits => ({
  headersTimeoutMs: 5000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5000,
  maxConnections: 100,
  maxPerAddress: null,
  ...overrides,
});

const serve = async (connectionLimits: ConnectionLimits): Promise<number> => {
  const server = http.createServer((_request, response) => response.end("ok"));
  limitConnections(server, connectionLimits);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

/** A connection, open once the server side has accepted it. */
const connect = async (port: number): Promise<net.Socket> => {
  const socket = net.connect(port, "127.0.0.1");
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return socket;
};

const until = async (check: () => Promise<boolean>) => {
  const deadline = Date.now() + 3000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in 3 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const closed = (socket: net.Socket) => new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once("close", () => resolve())));

describe("front connections: open_connections and connection_refusals_total", () => {
  it("counts a connection while it is open, and no longer once it closes", async () => {
    const { openConnections } = metrics();
    const port = await serve(limits({}));
    const before = await valueOf(openConnections);
    const socket = await connect(port);
    await until(async () => (await valueOf(openConnections)) === before + 1);
    socket.destroy();
    await until(async () => (await valueOf(openConnections)) === before);
  });

  it("counts a connection over the per-address cap as refused (per_address), not as open", async () => {
    const { openConnections, connectionRefusals } = metrics();
    const port = await serve(limits({ maxPerAddress: 1 }));
    const refusedBefore = await valueOf(connectionRefusals, { reason: "per_address" });
    const openBefore = await valueOf(openConnections);
    await connect(port);
    await until(async () => (await valueOf(openConnections)) === openBefore + 1);
    const second = await connect(port);
    await closed(second);
    expect(await valueOf(connectionRefusals, { reason: "per_address" })).toBe(refusedBefore + 1);
    expect(await valueOf(openConnections)).toBe(openBefore + 1);
  });

  it("counts a connection node drops beyond maxConnections (max_connections)", async () => {
    const { connectionRefusals } = metrics();
    const port = await serve(limits({ maxConnections: 1 }));
    const before = await valueOf(connectionRefusals, { reason: "max_connections" });
    await connect(port);
    const second = await connect(port);
    await closed(second);
    await until(async () => (await valueOf(connectionRefusals, { reason: "max_connections" })) === before + 1);
  });
});
