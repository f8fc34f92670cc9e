/**
 * The database as the rest of the code sees it, whichever engine is behind it (lib/db/client.ts
 * opens one). Apart from the client so that migrate.ts and the client do not import each other.
 */

/** Parameterised queries: what most code needs from a database. */
export interface Queryable {
  query<Row>(text: string, params?: unknown[]): Promise<Row[]>;
}

export interface Transaction extends Queryable {
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * The embedded database's worker thread (lib/db/pglite-thread.ts): "stopped" once it exited or
 * failed (every statement then fails until the process restarts); "absent" on PostgreSQL.
 */
export type EmbeddedWorkerState = "alive" | "stopped" | "absent";

export interface Db extends Transaction {
  readonly kind: "pglite" | "postgres";
  /** Read by the readiness check (lib/readiness.ts); no statement is sent. */
  embeddedWorker(): EmbeddedWorkerState;
  /**
   * For long reads read page by page (exports, batch results): on the embedded database each of
   * their statements waits until no other statement is running or waiting, so a page never
   * queues ahead of a request's query. On PostgreSQL, the pool as usual.
   */
  readonly longReads: Queryable;
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
