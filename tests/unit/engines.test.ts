import fs from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

/**
 * The Node.js lines package.json's engines admit are the lines the project runs on: README says
 * so, npm test runs every suite on the lowest (scripts/test.sh), and no runtime dependency may
 * ask for more, or `npm ci` warns EBADENGINE and the requirement is false.
 */
const root = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

type LockEntry = { version?: string; dev?: boolean; optional?: boolean; engines?: { node?: string } | string[] };
const pkg = JSON.parse(read("package.json")) as { engines: { node: string } };
const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, LockEntry & { engines?: { node?: string } }> };
const admitted = pkg.engines.node;
const lowest = semver.minVersion(admitted);

describe("Node.js lines", () => {
  it("package.json admits whole lines, the lowest of them first", () => {
    expect(semver.validRange(admitted)).not.toBeNull();
    expect(lowest?.major).toBe(Number(/\d+/.exec(admitted)?.[0]));
    expect(semver.subset(`${lowest?.major}.x`, admitted)).toBe(true);
  });

  it("every runtime dependency installed here admits every line package.json admits", () => {
    const runtime = Object.entries(lock.packages).filter(
      ([where, entry]) => where.startsWith("node_modules/") && !entry.dev && fs.existsSync(path.join(root, where)),
    );
    expect(runtime.length).toBeGreaterThan(50);
    const refusing = runtime.flatMap(([where, entry]) => {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return wanted && !semver.subset(admitted, wanted) ? [`${where.replace(/^.*node_modules\//, "")}@${entry.version}: node ${wanted}`] : [];
    });
    expect(refusing).toEqual([]);
  });

  it("README's requirements and the container image name the lines package.json admits", () => {
    expect(read("README.md")).toMatch(new RegExp(`^Requirements: Node\\.js ${lowest?.major}\\b`, "m"));
    const images = [...read("Dockerfile").matchAll(/^FROM node:(\d+)/gm)].map((match) => match[1]);
    expect(images.length).toBeGreaterThan(0);
    for (const major of images) expect(semver.subset(`${major}.x`, admitted), `Dockerfile: node:${major}`).toBe(true);
  });
});
