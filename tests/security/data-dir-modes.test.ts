import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirError, secureDataDir } from "@/lib/db/data-dir";
import { openDb } from "@/lib/database";
import { readOrCreateSecret } from "@/lib/security/secrets";

/**
 * Nothing under DATA_DIR (docs/security.md "Keys and secrets") may be readable by other users, even when the
 * directory already existed with a loose mode and the process runs under a permissive umask.
 */
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const LOOSE = 0o077;

const modeOf = (entry: string) => fs.lstatSync(entry).mode & 0o777;

const everything = (directory: string): string[] =>
  fs.readdirSync(directory).flatMap((name) => {
    const entry = path.join(directory, name);
    return fs.lstatSync(entry).isDirectory() ? [entry, ...everything(entry)] : [entry];
  });

const made: string[] = [];
const looseDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-modes-"));
  made.push(dir);
  fs.chmodSync(dir, 0o777);
  return dir;
};

afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("DATA_DIR file modes", () => {
  it("a loose DATA_DIR is made owner-only, with everything in it, under umask 000", async () => {
    const dataDir = looseDir();
    fs.writeFileSync(path.join(dataDir, "left-over"), "x", { mode: 0o666 });
    fs.chmodSync(path.join(dataDir, "left-over"), 0o666);
    const previous = process.umask(0);
    try {
      readOrCreateSecret(dataDir);
      const db = await openDb({ dataDir, timeoutMs: 10_000 });
      await db.exec("CREATE TABLE private_notes (note text); INSERT INTO private_notes VALUES ('secret')");
      // While open, PGlite's new table files sit in directories others cannot enter.
      expect(modeOf(dataDir) & LOOSE).toBe(0);
      expect(modeOf(path.join(dataDir, "pglite")) & LOOSE).toBe(0);
      await db.close();
    } finally {
      process.umask(previous);
    }
    const entries = [dataDir, ...everything(dataDir)];
    expect(entries.length).toBeGreaterThan(100);
    const loose = entries.filter((entry) => (modeOf(entry) & LOOSE) !== 0).map((entry) => `${modeOf(entry).toString(8)} ${entry}`);
    expect(loose).toEqual([]);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, "auth-secret"))).toBe(0o600);
    expect(modeOf(path.join(dataDir, "left-over"))).toBe(0o600);
  }, 120_000);

  it("refuses a shared folder such as /tmp (sticky bit) and leaves what is in it as it was", () => {
    const shared = looseDir();
    fs.chmodSync(shared, 0o1777);
    const other = path.join(shared, "someone-elses");
    fs.writeFileSync(other, "x");
    fs.chmodSync(other, 0o644);
    expect(() => secureDataDir(shared)).toThrow(DataDirError);
    expect(() => secureDataDir(shared)).toThrow(/shared folder \(sticky bit set, mode 1777\).*DATA_DIR=.*social-lookup/);
    expect(modeOf(shared)).toBe(0o777);
    expect(modeOf(other)).toBe(0o644);
    // A folder of its own inside it is fine.
    expect(secureDataDir(path.join(shared, "social-lookup")).tightened).toEqual([]);
  });

  it("a new DATA_DIR is created 0700", () => {
    const parent = looseDir();
    const dataDir = path.join(parent, "nested", "data");
    expect(secureDataDir(dataDir).tightened).toEqual([]);
    expect(modeOf(dataDir)).toBe(0o700);
  });

  it("refuses, with a clear message, a loose DATA_DIR it cannot make private — and npm start says so", () => {
    let dataDir: string;
    if (process.getuid?.() === 0) {
      // As root: a directory of another user (nobody), which this process must not take over.
      dataDir = looseDir();
      fs.chmodSync(dataDir, 0o755);
      fs.chownSync(dataDir, 65534, 65534);
    } else {
      // Not root: the system's temporary directory is world-writable and not ours.
      dataDir = os.tmpdir();
    }
    const before = modeOf(dataDir);
    expect(() => secureDataDir(dataDir)).toThrow(DataDirError);
    expect(() => secureDataDir(dataDir)).toThrow(/can be read by other users .* chmod 700/);
    expect(modeOf(dataDir)).toBe(before);

    const started = spawnSync(process.execPath, [path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/start.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", DATA_DIR: dataDir, AUTH_SECRET: "s".repeat(40), PORT: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toMatch(/^error: DATA_DIR .* can be read by other users .* chmod 700/m);
    expect(modeOf(dataDir)).toBe(before);
  }, 90_000);
});
