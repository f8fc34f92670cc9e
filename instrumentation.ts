/**
 * Runs once when a server process starts; background jobs live in the Node.js runtime only.
 * NEXT_RUNTIME is read here directly (not through lib/env.ts) because Next drops the Node-only
 * import from edge bundles only when it sees this literal check.
 */
export const register = async (): Promise<void> => {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ startBackgroundJobs }, { pipelineBatchLookup }, { log }] = await Promise.all([import("@/lib/jobs"), import("@/lib/api/batch-lookup"), import("@/lib/log")]);
  // Batches run their lookups through the /v1 pipeline: the edge is handed down to the jobs here.
  await startBackgroundJobs({ batchLookup: pipelineBatchLookup }).catch((error: unknown) => {
    log.error("background jobs did not start", { err: error });
  });
};
