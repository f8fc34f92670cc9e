import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { secureDataDir } from "./data-dir";

/**
 * What secureDataDir reports: only entries another user could really open. PGlite writes its
 * files 0666 inside the 0700 DATA_DIR at every start; they are tightened without a word.
 */
const made: string[] = [];
const dataDirWith = (mode: number): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-data-dir-"));
  made.push(dir);
  fs.mkdirSync(path.join(dir, "pglite", "base"), { recursive: true });
  for (const file of [path.join(dir, "pglite", "base", "1259"), path.join(dir, "auth-secret")]) {
    fs.writeFileSync(file, "x");
    fs.chmodSync(file, 0o666);
  }
  fs.chmodSync(path.join(dir, "pglite"), 0o755);
  fs.chmodSync(path.join(dir, "pglite", "base"), 0o755);
  fs.chmodSync(dir, mode);
  return dir;
};
const modeOf = (entry: string) => fs.statSync(entry).mode & 0o777;

afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("secureDataDir", () => {
  it("reports nothing for loose files inside an owner-only DATA_DIR (a second start), and still tightens them", () => {
    const dir = dataDirWith(0o700);
    expect(secureDataDir(dir).tightened).toEqual([]);
    expect(modeOf(path.join(dir, "pglite", "base", "1259"))).toBe(0o600);
    expect(modeOf(path.join(dir, "pglite"))).toBe(0o700);
    expect(secureDataDir(dir).tightened).toEqual([]);
  });

  it("reports DATA_DIR and what others could reach through it when it was open to them", () => {
    const dir = dataDirWith(0o755);
    const { tightened } = secureDataDir(dir);
    expect(tightened).toEqual(
      expect.arrayContaining([dir, path.join(dir, "auth-secret"), path.join(dir, "pglite"), path.join(dir, "pglite", "base", "1259")]),
    );
    expect(modeOf(dir)).toBe(0o700);
  });

  it("reports the open DATA_DIR, not what sat behind an owner-only folder inside it", () => {
    const dir = dataDirWith(0o750);
    fs.chmodSync(path.join(dir, "pglite"), 0o700);
    const { tightened } = secureDataDir(dir);
    expect(tightened).toContain(dir);
    expect(tightened).toContain(path.join(dir, "auth-secret"));
    expect(tightened.some((entry) => entry.startsWith(path.join(dir, "pglite")))).toBe(false);
    expect(modeOf(path.join(dir, "pglite", "base", "1259"))).toBe(0o600);
  });
});
