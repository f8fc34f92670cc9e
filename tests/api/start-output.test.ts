import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, groupAlive, inheritedEnv, randomSecret, signalGroup } from "@/lib/cli/processes";
import { delay, embeddedInRun, ROOT, waitForForeignBuild } from "./harness";

/**
 * What `npm start` (scripts/start.ts) writes where, as a log collector or a service manager
 * captures it (neither stream a terminal): stdout carries the server's JSON log lines alone; the
 * banner (URL, how to sign in) goes to stderr and names the file that holds a generated password
 * rather than printing it; a second start on the same owner-only DATA_DIR says nothing of
 * permissions (the first start left nothing open to other users).
 */
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

type Started = { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> };

const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-api-start-output-"));
const dataDir = path.join(runDir, "data");
const running: Started[] = [];

const start = async (port: number): Promise<Started> => {
  let out = "";
  let err = "";
  const child = spawn(process.execPath, [TSX_CLI, "scripts/start.ts"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...inheritedEnv(),
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      AUTH_SECRET: randomSecret(48),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_SOURCE: "store",
    },
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const started: Started = { child, stdout: () => out, stderr: () => err, exited };
  running.push(started);
  const deadline = Date.now() + 600_000;
  while (!err.includes("Social Lookup is ready at")) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${err.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`npm start printed no banner:\n${err.slice(-2000)}`);
    await delay(250);
  }
  // The banner's last line comes a moment after its first.
  await delay(300);
  return started;
};

const stop = async (started: Started): Promise<void> => {
  const pid = started.child.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  signalGroup(pid, "SIGTERM");
  await Promise.race([started.exited, delay(20_000)]);
  if (groupAlive(pid)) signalGroup(pid, "SIGKILL");
};

afterAll(async () => {
  for (const started of running) await stop(started);
  fs.rmSync(runDir, { recursive: true, force: true });
});

/** Lines that are not the server's JSON log lines: what start.ts or a build wrote to stdout. */
const nonJsonLines = (text: string): string[] =>
  text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .filter((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return typeof value !== "object" || value === null;
      } catch {
        return true;
      }
    });

describe.runIf(embeddedInRun)("npm start with its output captured", () => {
  it("prints the URL and how to sign in on stderr, the generated password nowhere, and only JSON log lines on stdout", async () => {
    await waitForForeignBuild();
    const port = await freePort();
    const first = await start(port);
    const password = /^password: (.+)$/m.exec(fs.readFileSync(path.join(dataDir, "initial-admin.txt"), "utf8"))?.[1] ?? "";
    expect(password.length).toBeGreaterThanOrEqual(12);

    const banner = first.stderr();
    expect(banner).toContain(`Social Lookup is ready at http://127.0.0.1:${port}`);
    expect(banner).toContain(`  Console: http://127.0.0.1:${port}/signin`);
    expect(banner).toContain(`  Sign in as admin@localhost with the password saved in ${path.join(dataDir, "initial-admin.txt")}`);
    expect(banner).toContain("Loaded the demo data set into the empty database.");
    expect(banner).not.toContain(password);

    const log = first.stdout();
    expect(log).not.toContain(password);
    expect(log).not.toContain("Social Lookup is ready at");
    expect(log).not.toContain("Sign in as");
    // A build, when one was needed, prints to stdout before the server's first line.
    expect(nonJsonLines(log).filter((line) => !/Building the application|^\s|next build|Next\.js|✓|Route \(|○|ƒ|├|└|┌|Compiled|Collecting|Generating|Finalizing|Creating/.test(line))).toEqual([]);
    expect(log).toMatch(/"msg":"Ready on http:\/\/127\.0\.0\.1:\d+/);
    // Nothing under DATA_DIR was open to other users: no start says it was.
    expect(`${banner}${log}`).not.toContain("readable by other users");
    await stop(first);
  }, 700_000);

  it("says nothing of DATA_DIR's permissions on a second start, and points to the first admin's password file", async () => {
    const second = await start(await freePort());
    const output = `${second.stderr()}${second.stdout()}`;
    expect(output).not.toContain("readable by other users");
    expect(output).not.toContain("owner-only");
    expect(second.stderr()).toContain(`  Sign in with your account (the first admin's generated password is in ${path.join(dataDir, "initial-admin.txt")}).`);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    await stop(second);
  }, 300_000);
});
