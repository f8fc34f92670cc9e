import { runCli } from "@/lib/cli/open";
import { ensureBuild } from "@/lib/cli/build";
import { ensureClientBuild } from "@/lib/cli/client-build";

/** Builds the production bundle and the TypeScript SDK, each unless its current build was made from these very sources. */
runCli(async () => {
  if (ensureBuild(process.cwd()) === "current") console.log("Production build is current.");
  if (ensureClientBuild(process.cwd()) === "current") console.log("TypeScript SDK build is current.");
});
