import path from "node:path";

/**
 * Whether this Node.js is one `npm start` may run on: the lowest line package.json's engines admit
 * (README names it) or a later one. On an older node, `npm start` runs itself again on that line,
 * from NODE_CACHE_DIR: the one `npm test` fetched there (scripts/test.sh installs
 * node-linux-<arch>@<major>, a bin/node inside), or one it fetches there itself the same way.
 * Where npm carries no Node.js for this machine (or the fetch fails) it says what to install.
 */
export type NodeFetch = {
  /** The npm command (arguments of `npm`) that installs the lowest line into the cache. */
  npmArgs: string[];
  /** The node it installs. */
  node: string;
  /** The one line `npm start` prints before fetching. */
  notice: string;
};

export type NodeLineCheck =
  | { ok: true }
  | { ok: false; lowestMajor: number; relaunchWith: string; notice: string }
  | { ok: false; lowestMajor: number; relaunchWith: null; fetch: NodeFetch | null; message: string };

type NodeLineInput = {
  /** process.versions.node */
  version: string;
  /** package.json engines.node, e.g. "^22.0.0 || ^24.0.0 || ^26.0.0": its first number is the lowest line. */
  engines: string;
  /** NODE_CACHE_DIR, or XDG_CACHE_HOME/social-lookup/node, or ~/.cache/social-lookup/node (as scripts/test.sh). */
  cacheDir: string;
  platform: NodeJS.Platform;
  arch: string;
  isExecutable: (file: string) => boolean;
};

export const nodeCacheDir = (config: { NODE_CACHE_DIR?: string; XDG_CACHE_HOME?: string }, homeDir: string): string =>
  config.NODE_CACHE_DIR || path.join(config.XDG_CACHE_HOME || path.join(homeDir, ".cache"), "social-lookup", "node");

/** The npm package that carries a Linux build of Node.js for this machine, or null elsewhere. */
const nodePackage = (platform: NodeJS.Platform, arch: string): string | null =>
  platform === "linux" && (arch === "x64" || arch === "arm64") ? `node-linux-${arch}` : null;

export const checkNodeLine = (input: NodeLineInput): NodeLineCheck => {
  const lowestMajor = Number(/\d+/.exec(input.engines)?.[0]);
  const major = Number(input.version.split(".")[0]);
  if (!Number.isInteger(lowestMajor) || major >= lowestMajor) return { ok: true };

  const packageName = nodePackage(input.platform, input.arch);
  const prefix = path.join(input.cacheDir, String(lowestMajor));
  const cached = packageName ? path.join(prefix, "node_modules", packageName, "bin", "node") : null;
  if (cached && input.isExecutable(cached)) {
    return {
      ok: false,
      lowestMajor,
      relaunchWith: cached,
      notice: `Node.js ${input.version} is older than Node.js ${lowestMajor}, the lowest line Social Lookup runs on: running on ${cached} instead.`,
    };
  }
  const fetch: NodeFetch | null =
    packageName && cached
      ? {
          // The same install as scripts/test.sh's, so npm test and npm start share one copy.
          npmArgs: ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", `${packageName}@${lowestMajor}`],
          node: cached,
          notice:
            `Node.js ${input.version} is older than Node.js ${lowestMajor}, the lowest line Social Lookup runs on: ` +
            `fetching Node.js ${lowestMajor} from npm (${packageName}@${lowestMajor}, once) into ${prefix} and running on it.`,
        }
      : null;
  const lines = [
    `Social Lookup needs Node.js ${lowestMajor} or later (package.json engines: ${input.engines}); this is Node.js ${input.version}.`,
    `  Install Node.js ${lowestMajor} or a later LTS line from https://nodejs.org/en/download (or: nvm install ${lowestMajor}), then run npm start again.`,
  ];
  if (packageName) {
    lines.push(
      `  Or fetch Node.js ${lowestMajor} for this project alone, without root (npm test does the same; npm start then runs on it):`,
      `    npm install --prefix ${prefix} --no-save ${packageName}@${lowestMajor}`,
    );
  }
  return { ok: false, lowestMajor, relaunchWith: null, fetch, message: lines.join("\n") };
};
