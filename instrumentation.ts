import { nextRuntime } from "@/lib/env";

/** Runs once when a server process starts: background jobs live in the Node.js runtime only. */
export const register = async (): Promise<void> => {
  if (nextRuntime() !== "nodejs") return;
  const { startBackgroundJobs } = await import("@/lib/jobs");
  await startBackgroundJobs().catch((error: unknown) => {
    console.error(`Background jobs did not start: ${error instanceof Error ? error.message : String(error)}`);
  });
};
