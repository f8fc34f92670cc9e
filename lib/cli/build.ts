import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * A content hash of everything `next build` reads, so `npm start` rebuilds exactly when the
 * sources changed since the last build (and never serves a stale one). The Node.js line is not
 * part of it: the output is JavaScript, and one build serves every line package.json admits
 * (npm run test:proofs boots the build made on the lowest line on each further line).
 */
const INPUT_DIRS = ["app", "components", "lib", "public"];
const INPUT_FILES = ["next.config.ts", "package-lock.json", "postcss.config.mjs", "tsconfig.json", "proxy.ts", "instrumentation.ts"];

const walk = (dir: string): string[] => {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return entry.name.endsWith(".test.ts") ? [] : [full];
  });
};

export const sourceFingerprint = (root: string): string => {
  const hash = crypto.createHash("sha256");
  const files = [
    ...INPUT_DIRS.flatMap((dir) => walk(path.join(root, dir))),
    ...INPUT_FILES.map((file) => path.join(root, file)).filter((file) => fs.existsSync(file)),
  ].sort();
  for (const file of files) {
    hash.update(path.relative(root, file));
    hash.update("\0");
    hash.update(fs.readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
};

const stampPath = (root: string) => path.join(root, ".next", "source-fingerprint");

export const buildIsCurrent = (root: string): boolean => {
  const stamp = stampPath(root);
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || !fs.existsSync(stamp)) return false;
  return fs.readFileSync(stamp, "utf8") === sourceFingerprint(root);
};

export const recordBuild = (root: string): void => {
  fs.writeFileSync(stampPath(root), sourceFingerprint(root));
};

/**
 * The environment of a process that runs Next (the build, the server), with Next's anonymous
 * usage telemetry off: a self-hosted product reports nothing to a third party, and its first build
 * prints no telemetry notice.
 */
export const nextProcessEnv = <Env extends Record<string, string | undefined>>(base: Env): Env & { NEXT_TELEMETRY_DISABLED: "1" } => ({
  ...base,
  NEXT_TELEMETRY_DISABLED: "1",
});

/** Runs `next build` unless the current build was made from these very sources. */
export const ensureBuild = (root: string): "current" | "built" => {
  if (buildIsCurrent(root)) return "current";
  console.log("Building the application (first start or sources changed)…");
  const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
  const result = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: nextProcessEnv(process.env) });
  if (result.status !== 0) throw new Error("next build failed (see above)");
  recordBuild(root);
  return "built";
};
