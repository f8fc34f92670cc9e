import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, groupAlive, groupRssKiB, inheritedEnv, randomSecret, runCaptured, runLogged, signalGroup } from "./processes";

const exited = (child: ReturnType<typeof spawn>) => new Promise<void>((resolve) => child.once("exit", () => resolve()));

describe("process helpers of the scripts and harnesses", () => {
  it("finds a port that can be listened on", async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(port).toBeGreaterThan(0);
  });

  it("sees a process group, its memory, and its end after a signal", async () => {
    const child = spawn(process.execPath, ["-e", "console.log('ready'); setInterval(() => {}, 1000)"], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const groupId = child.pid;
    if (groupId === undefined) throw new Error("no pid");
    const gone = exited(child);
    // Node is up (not still being exec'd) once it prints.
    await new Promise((resolve) => child.stdout?.once("data", resolve));
    try {
      expect(groupAlive(groupId)).toBe(true);
      expect(groupRssKiB(groupId)).toBeGreaterThan(1024);
    } finally {
      signalGroup(groupId, "SIGKILL");
      await gone;
    }
    expect(groupAlive(groupId)).toBe(false);
    expect(groupRssKiB(groupId)).toBe(0);
    expect(() => signalGroup(groupId, "SIGKILL")).not.toThrow();
  });

  it("passes on only the inherited variables", () => {
    const previous = process.env.DATABASE_URL;
    process.env.DATABASE_URL = "postgresql://somewhere/else";
    try {
      const inherited = inheritedEnv();
      expect(inherited).not.toHaveProperty("DATABASE_URL");
      expect(inherited.PATH).toBe(process.env.PATH);
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
    }
  });

  it("makes URL-safe secrets of the asked length", () => {
    const secret = randomSecret(24);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(randomSecret(24)).not.toBe(secret);
  });

  it("captures a command's output and exit code, or appends it to a log", async () => {
    const script = "process.stdout.write('out'); process.stderr.write('err'); process.exit(3)";
    expect(await runCaptured(process.execPath, ["-e", script], { cwd: os.tmpdir(), env: { ...inheritedEnv(), NODE_ENV: "test" } })).toEqual({
      code: 3,
      stdout: "out",
      stderr: "err",
    });
    const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sl-processes-")), "run.log");
    try {
      fs.writeFileSync(logFile, "before\n");
      expect(await runLogged(process.execPath, ["-e", script], { cwd: os.tmpdir(), env: { ...inheritedEnv(), NODE_ENV: "test" }, logFile })).toBe(3);
      expect(fs.readFileSync(logFile, "utf8")).toMatch(/^before\n(outerr|errout)$/);
    } finally {
      fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
    }
  });
});
