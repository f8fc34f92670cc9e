import { metrics } from "@/lib/metrics/registry";
import type { Db } from "./types";

/**
 * Every statement the app sends passes here once (lib/db/client.ts): its latency as the app sees
 * it, queueing on the embedded database's thread included, goes to the statement histogram (and,
 * with traces on, a span). `text` is the SQL, never its parameters.
 */
export type StatementKind = "query" | "long_read" | "transaction";

export const observeStatement = async <T>(database: Db["kind"], kind: StatementKind, _text: string, run: () => Promise<T>): Promise<T> => {
  const startedPerf = performance.now();
  try {
    return await run();
  } finally {
    metrics().dbStatementDuration.observe({ database, kind }, (performance.now() - startedPerf) / 1000);
  }
};
