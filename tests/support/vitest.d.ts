import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of a migrated, closed embedded database (tests/support/pglite-template.ts); "" when none. */
    pgliteTemplate: string;
  }
}
