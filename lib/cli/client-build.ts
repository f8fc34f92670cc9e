import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The TypeScript SDK's compiled package (clients/typescript/dist: ESM + .d.ts), what a script,
 * the `social-lookup` command and the API suite import. `npm ci` builds it (the workspace's
 * `prepare`); `npx tsx scripts/build.ts` (and so `npm test`) builds it again when its sources
 * changed since, by a content hash stamped beside the output, as the app's build is.
 */
const PACKAGE_DIR = path.join("clients", "typescript");
const INPUTS = ["src", "tsconfig.json", "package.json"];

const filesOf = (entry: string): string[] => {
  if (!fs.existsSync(entry)) return [];
  if (!fs.statSync(entry).isDirectory()) return [entry];
  return fs.readdirSync(entry, { withFileTypes: true }).flatMap((child) => filesOf(path.join(entry, child.name)));
};

export const clientFingerprint = (root: string): string => {
  const base = path.join(root, PACKAGE_DIR);
  const hash = crypto.createHash("sha256");
  for (const file of INPUTS.flatMap((input) => filesOf(path.join(base, input))).sort()) {
    hash.update(path.relative(base, file));
    hash.update("\0");
    hash.update(fs.readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
};

const stampOf = (root: string) => path.join(root, PACKAGE_DIR, "dist", ".source-fingerprint");

export const clientBuildIsCurrent = (root: string): boolean =>
  fs.existsSync(stampOf(root)) && fs.readFileSync(stampOf(root), "utf8") === clientFingerprint(root);

/** Compiles the SDK unless dist was compiled from these very sources. */
export const ensureClientBuild = (root: string): "current" | "built" => {
  if (clientBuildIsCurrent(root)) return "current";
  console.log("Building the TypeScript SDK (clients/typescript)…");
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", path.join(root, PACKAGE_DIR, "tsconfig.json")], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("compiling clients/typescript failed (see above)");
  fs.writeFileSync(stampOf(root), clientFingerprint(root));
  return "built";
};
