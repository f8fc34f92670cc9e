import { EXIT, runCli } from "@/lib/cli/open";
import { buildIsCurrent, ensureBuild } from "@/lib/cli/build";
import { ensureClientBuild } from "@/lib/cli/client-build";

/**
 * Builds the production bundle and the TypeScript SDK, each unless its current build was made from
 * these very sources. With --check it builds nothing: exit 0 when the production build is current
 * on the Node.js running it (one build serves every line: npm run test:proofs checks that before
 * booting it on a further line), 1 when it is not.
 */
runCli(async () => {
  if (process.argv.includes("--check")) {
    const current = buildIsCurrent(process.cwd());
    console.log(`Production build is ${current ? "current" : "NOT current"} on Node.js ${process.versions.node}.`);
    return current ? EXIT.ok : EXIT.failed;
  }
  if (ensureBuild(process.cwd()) === "current") console.log("Production build is current.");
  if (ensureClientBuild(process.cwd()) === "current") console.log("TypeScript SDK build is current.");
});
