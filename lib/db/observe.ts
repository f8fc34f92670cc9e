import { metrics } from "@/lib/metrics/registry";
import { ATTR, DB_SYSTEM_POSTGRESQL } from "@/lib/tracing/attributes";
import { tracingEnabled, withSpan } from "@/lib/tracing/spans";
import type { Db } from "./types";

/**
 * Every statement the app sends passes here once (lib/db/client.ts): its latency as the app sees
 * it, queueing on the embedded database's thread included, goes to the statement histogram (and,
 * with traces on, a span). `text` is the SQL, never its parameters.
 */
export type StatementKind = "query" | "long_read" | "transaction";

/** The statement's first word (SELECT, INSERT, WITH, …): its operation in a trace. */
const operationOf = (kind: StatementKind, text: string): string =>
  kind === "transaction" ? "TRANSACTION" : (/^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? "SQL");

/**
 * A span only inside a request or a batch lookup still in progress: the background jobs' polls
 * would otherwise make a trace of one statement every second.
 */
const traced = <T>(database: Db["kind"], kind: StatementKind, text: string, run: () => Promise<T>): Promise<T> => {
  const operation = operationOf(kind, text);
  return withSpan(
    `db ${operation}`,
    {
      [ATTR.dbSystemName]: DB_SYSTEM_POSTGRESQL,
      [ATTR.dbSystem]: DB_SYSTEM_POSTGRESQL,
      [ATTR.dbOperationName]: operation,
      [ATTR.dbQueryText]: kind === "transaction" ? null : text.replace(/\s+/g, " ").trim(),
      [ATTR.dbKind]: kind,
      [ATTR.dbEngine]: database,
    },
    run,
    { kind: "client", parent: "required" },
  );
};

export const observeStatement = async <T>(database: Db["kind"], kind: StatementKind, text: string, run: () => Promise<T>): Promise<T> => {
  const startedPerf = performance.now();
  try {
    return await (tracingEnabled() ? traced(database, kind, text, run) : run());
  } finally {
    metrics().dbStatementDuration.observe({ database, kind }, (performance.now() - startedPerf) / 1000);
  }
};
