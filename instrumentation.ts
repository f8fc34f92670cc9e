/**
 * Runs once when a server process starts; background jobs live in the Node.js runtime only.
 * NEXT_RUNTIME is read here directly (not through lib/env.ts) because Next drops the Node-only
 * import from edge bundles only when it sees this literal check.
 */
export const register = async (): Promise<void> => {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startBackgroundJobs } = await import("@/lib/jobs");
  await startBackgroundJobs().catch((error: unknown) => {
    console.error(`Background jobs did not start: ${error instanceof Error ? error.message : String(error)}`);
  });
};
