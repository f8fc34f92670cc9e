import { runCli } from "@/lib/cli/open";
import { ensureBuild } from "@/lib/cli/build";

/** Builds the production bundle unless the current one was built from these very sources. */
runCli(async () => {
  if (ensureBuild(process.cwd()) === "current") console.log("Production build is current.");
});
