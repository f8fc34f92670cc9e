import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";

/**
 * The two things the fault tests break, both owned by the suite and never the machine's shared
 * services: a TCP proxy in front of PostgreSQL that can cut the network, and a redis-server of
 * the suite's own that can be killed and started again on the same port.
 */

// ---------------------------------------------------------------------------------------------
// A TCP proxy that can partition the network

export type TcpProxy = {
  port: number;
  /** The network goes silent: open connections stop moving bytes, new ones are accepted but never reach the server. */
  cut(): void;
  /** The partition heals: held bytes flow again and held connections are carried through. */
  restore(): void;
  isCut(): boolean;
  /** Connections ever accepted; connections open now. */
  stats(): { accepted: number; open: number };
  close(): Promise<void>;
};

type Pair = { client: net.Socket; server: net.Socket | null };

/**
 * A cut behaves like a partition, not like a server that went away: nothing is refused or
 * reset, packets just stop (the kernel buffers what is written), so every wait on the database
 * runs into the application's own timeouts. On restore, what was buffered flows on, as TCP
 * would deliver it after a partition heals.
 */
export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  const pairs = new Set<Pair>();
  const held: Pair[] = [];
  let partitioned = false;
  let accepted = 0;

  const connectThrough = (pair: Pair): void => {
    const server = net.connect(target.port, target.host);
    pair.server = server;
    server.setNoDelay(true);
    pair.client.pipe(server);
    server.pipe(pair.client);
    const end = () => {
      pair.client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    server.on("error", end);
    server.on("close", end);
    pair.client.resume();
  };

  const proxy = net.createServer((client) => {
    accepted += 1;
    client.setNoDelay(true);
    const pair: Pair = { client, server: null };
    pairs.add(pair);
    client.on("error", () => client.destroy());
    client.on("close", () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    if (partitioned) {
      client.pause();
      held.push(pair);
      return;
    }
    connectThrough(pair);
  });

  await new Promise<void>((resolve, reject) => {
    proxy.once("error", reject);
    proxy.listen(0, "127.0.0.1", () => resolve());
  });
  const address = proxy.address();
  if (address === null || typeof address === "string") throw new Error("TCP proxy has no port");

  return {
    port: address.port,
    cut: () => {
      partitioned = true;
      for (const pair of pairs) {
        // Unpiping stops both directions; paused sockets leave the bytes in the kernel buffers.
        pair.client.unpipe();
        pair.server?.unpipe();
        pair.client.pause();
        pair.server?.pause();
      }
    },
    restore: () => {
      partitioned = false;
      for (const pair of pairs) {
        if (!pair.server || pair.client.destroyed || pair.server.destroyed) continue;
        pair.client.pipe(pair.server);
        pair.server.pipe(pair.client);
        pair.client.resume();
        pair.server.resume();
      }
      for (const pair of held.splice(0)) {
        if (!pair.client.destroyed) connectThrough(pair);
      }
    },
    isCut: () => partitioned,
    stats: () => ({ accepted, open: pairs.size }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.server?.destroy();
        }
        proxy.close(() => resolve());
      }),
  };
};

// ---------------------------------------------------------------------------------------------
// The suite's own redis-server

export type RedisProcess = {
  port: number;
  url: string;
  pid(): number | null;
  /** SIGKILL: no shutdown, no goodbye to the clients. */
  kill(): Promise<void>;
  /** Starts it again on the same port (it comes back empty: --save "" --appendonly no). */
  start(): Promise<void>;
  stop(): Promise<void>;
};

export const redisServerAvailable = (): string | null => {
  const found = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (found.error || found.status !== 0) return "redis-server is not on PATH";
  return null;
};

const redisPing = (port: number, timeoutMs: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
    socket.on("error", () => done(false));
  });

export const waitForRedis = async (port: number, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await redisPing(port, 500)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
};

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));

export const startRedisServer = async (port: number): Promise<RedisProcess> => {
  let child: ChildProcess | null = null;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) throw new Error("the suite's redis-server is already running");
    const spawned = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning"],
      { stdio: "ignore" },
    );
    child = spawned;
    if (!(await waitForRedis(port, 10_000))) {
      spawned.kill("SIGKILL");
      throw new Error(`redis-server did not answer PING on port ${port}`);
    }
  };

  const kill = async () => {
    const running = child;
    if (!running) return;
    running.kill("SIGKILL");
    await exited(running);
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null),
    kill,
    start,
    stop: kill,
  };
};
