import type { ApiTarget } from "./harness";

/** What tests/api/global-setup.ts provides to the API test files (read with `inject`). */
declare module "vitest" {
  export interface ProvidedContext {
    /** The running production servers: "pglite" and "postgres" (when reachable), or the one API_DATABASES names. */
    apiTargets: ApiTarget[];
    /** Targets that were skipped, with the reason. */
    apiSkipped: string[];
  }
}
