import type { ApiTarget } from "./harness";

/** What tests/api/global-setup.ts provides to the API test files (read with `inject`). */
declare module "vitest" {
  export interface ProvidedContext {
    /** The running production servers: always "pglite", plus "postgres" when it is reachable. */
    apiTargets: ApiTarget[];
    /** Targets that were skipped, with the reason. */
    apiSkipped: string[];
  }
}
