import type { ScaleCluster } from "./harness";

/** What tests/scale/global-setup.ts provides to the scale test files (read with `inject`). */
declare module "vitest" {
  export interface ProvidedContext {
    /** The running cluster, or null when PostgreSQL or Redis is unreachable. */
    scaleCluster: ScaleCluster | null;
    /** Why the suite is skipped, or null. */
    scaleSkipped: string | null;
  }
}
