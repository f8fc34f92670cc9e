import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildIsCurrent, recordBuild, sourceFingerprint } from "./build";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sl-build-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Runs `work` as if on Node.js `version`: process.versions is what the fingerprint could read. */
const onNode = <T>(version: string, work: () => T): T => {
  const real = Object.getOwnPropertyDescriptor(process, "versions");
  Object.defineProperty(process, "versions", { value: { ...process.versions, node: version }, configurable: true });
  try {
    return work();
  } finally {
    if (real) Object.defineProperty(process, "versions", real);
  }
};

describe("the build fingerprint", () => {
  fs.mkdirSync(path.join(root, "lib"), { recursive: true });
  fs.mkdirSync(path.join(root, ".next"), { recursive: true });
  fs.writeFileSync(path.join(root, "lib", "a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(root, "lib", "a.test.ts"), "// not an input of the build\n");
  fs.writeFileSync(path.join(root, ".next", "BUILD_ID"), "test\n");

  it("is the same on every Node.js line: one build serves 22, 24 and 26", () => {
    const on22 = onNode("22.23.5", () => sourceFingerprint(root));
    expect(onNode("24.1.0", () => sourceFingerprint(root))).toBe(on22);
    expect(onNode("26.0.0", () => sourceFingerprint(root))).toBe(on22);
    onNode("22.23.5", () => recordBuild(root));
    expect(onNode("24.1.0", () => buildIsCurrent(root))).toBe(true);
  });

  it("changes with a source, not with a test file", () => {
    const before = sourceFingerprint(root);
    fs.writeFileSync(path.join(root, "lib", "a.test.ts"), "// still not an input\n");
    expect(sourceFingerprint(root)).toBe(before);
    fs.writeFileSync(path.join(root, "lib", "a.ts"), "export const a = 2;\n");
    expect(sourceFingerprint(root)).not.toBe(before);
    expect(buildIsCurrent(root)).toBe(false);
  });
});
