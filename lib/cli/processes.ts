import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";

/**
 * Child processes, ports and process groups for the scripts (benches, cluster) and the test
 * harnesses that start production servers: one implementation each, Linux-only where /proc is read.
 */

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
const listenOnce = (port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(port, host, () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("could not find a free port"));
      });
    });
  });

/**
 * A port free on both loopback addresses: a server on the default HOST listens on 127.0.0.1 and
 * ::1 alike, so a port taken on ::1 alone would fail its start. A machine without IPv6 is fine
 * with the IPv4 port.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; ; attempt += 1) {
    const port = await listenOnce(0, "127.0.0.1");
    try {
      await listenOnce(port, "::1");
      return port;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EADDRINUSE" || attempt >= 20) return port;
    }
  }
};

/** Whether any process of the group is still there (zombies included). */
export const groupAlive = (groupId: number): boolean => {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Sends `signal` to every process of the group; a group that is already gone is fine. */
export const signalGroup = (groupId: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-groupId, signal);
  } catch {
    // already gone
  }
};

/** Resident memory of every process in the group, in KiB (from /proc; a server may run Next in a child). */
export const groupRssKiB = (groupId: number): number => {
  let kib = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 5 of /proc/PID/stat is the process group; the command name (field 2) may hold spaces.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== groupId) continue;
      const rss = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"));
      kib += Number(rss?.[1] ?? 0);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return kib;
};

/**
 * The only variables a server or CLI started by a bench or a suite inherits from the parent;
 * everything the app reads (lib/env.ts) is given explicitly, so a developer's DATABASE_URL,
 * REDIS_URL or DATA_SOURCE never changes what is measured or tested.
 */
const INHERITED_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM"] as const;

export const inheritedEnv = (): Record<string, string> => {
  const base: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return base;
};

/** `length` random URL-safe characters (secrets and passwords of throw-away servers). */
export const randomSecret = (length: number): string => crypto.randomBytes(length).toString("base64url").slice(0, length);

export type CapturedRun = { code: number; stdout: string; stderr: string };

/** Runs a command to its end with its output captured (for CLIs whose output the caller reads). */
export const runCaptured = (command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CapturedRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });

/** Runs a command to its end with its output appended to `logFile`; resolves with the exit code. */
export const runLogged = (command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string }): Promise<number> =>
  new Promise((resolve, reject) => {
    const fd = fs.openSync(options.logFile, "a");
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", fd, fd] });
    fs.closeSync(fd);
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
