import type http from "node:http";
import { describeError, log } from "@/lib/log";

/**
 * The graceful stop of a process that serves HTTP (server.ts on SIGTERM), in the order a load
 * balancer needs it (docs/monitoring.md "Probes and shutdown"):
 *   1. not ready at once (/readyz answers 503 `draining`), every answer from now on closes its
 *      connection after it (a balancer's pooled connection is never closed under a request it
 *      is writing), and requests are still served for `drainDelayMs` — the time the balancer
 *      needs to see the 503 and stop sending;
 *   2. every listener stops accepting (a balancer's next connection is refused: it may safely
 *      send the request elsewhere) and idle connections close;
 *   3. requests in flight finish and the background jobs stop (a running batch is handed over),
 *      within `timeoutMs`; past it the remaining connections are cut;
 *   4. the last charges are written and the database is closed.
 */
export type AnswerTracker = {
  /** Called for each request as it arrives. */
  track(response: http.ServerResponse): void;
  /** From now on every answer not yet begun says `Connection: close`, and its connection ends after it. */
  closeConnectionsAfterAnswers(): void;
};

export const createAnswerTracker = (): AnswerTracker => {
  const unanswered = new Set<http.ServerResponse>();
  let closing = false;
  return {
    track: (response) => {
      if (closing) {
        response.setHeader("Connection", "close");
        return;
      }
      unanswered.add(response);
      response.once("close", () => unanswered.delete(response));
    },
    closeConnectionsAfterAnswers: () => {
      closing = true;
      // An answer already begun keeps its headers: its connection closes once idle (step 3).
      for (const response of unanswered) if (!response.headersSent) response.setHeader("Connection", "close");
      unanswered.clear();
    },
  };
};

export type ShutdownPlan = {
  drainDelayMs: number;
  timeoutMs: number;
  /** Every server this process listens on (the main port's, the metrics port's): each is closed. */
  listeners: readonly http.Server[];
  answers: AnswerTracker;
  startDraining(): void;
  stopBackgroundJobs(): Promise<void>;
  /** Charges and usage records still queued are written. */
  drainSettler(): Promise<void>;
  closeDatabase(): Promise<void>;
};

/** The last writes and the database's close get this long after the in-flight phase, whatever happened in it. */
export const FINAL_STEPS_MS = 5000;

/** While requests finish, connections that went idle without being told to close are closed this often. */
const IDLE_SWEEP_MS = 250;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** True when `work` settled within `ms`. */
const within = async (work: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true, () => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
};

const openConnections = (servers: readonly http.Server[]): Promise<number> =>
  Promise.all(servers.map((server) => new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count))))).then(
    (counts) => counts.reduce((sum, count) => sum + count, 0),
  );

/** Runs the plan; "forced" when a step outlived its bound (the process should then exit non-zero). */
export const shutDown = async (plan: ShutdownPlan): Promise<"clean" | "forced"> => {
  plan.startDraining();
  plan.answers.closeConnectionsAfterAnswers();
  if (plan.drainDelayMs > 0) {
    log.info("shutdown: not ready; still serving while balancers take note", { drainDelayMs: plan.drainDelayMs });
    await sleep(plan.drainDelayMs);
  }

  log.info("shutdown: no new connections; finishing requests in flight", { timeoutMs: plan.timeoutMs });
  const closed = plan.listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
  const sweep = () => {
    for (const server of plan.listeners) server.closeIdleConnections();
  };
  sweep();
  const sweeper = setInterval(sweep, IDLE_SWEEP_MS);
  const background = plan.stopBackgroundJobs();
  const finished = await within(Promise.all([...closed, background]), plan.timeoutMs);
  clearInterval(sweeper);
  let outcome: "clean" | "forced" = "clean";
  if (!finished) {
    outcome = "forced";
    log.warn("shutdown: SHUTDOWN_TIMEOUT_S reached; cutting the connections still open", {
      connections: await openConnections(plan.listeners),
    });
    for (const server of plan.listeners) server.closeAllConnections();
  }

  const lastSteps = (async () => {
    await plan.drainSettler();
    await plan.closeDatabase();
  })();
  if (!(await within(lastSteps, FINAL_STEPS_MS))) {
    outcome = "forced";
    log.warn("shutdown: writing the last charges or closing the database did not finish in time", { timeoutMs: FINAL_STEPS_MS });
  } else {
    await lastSteps.catch((error: unknown) => {
      outcome = "forced";
      log.warn("shutdown: the last charges or the database's close failed", { error: describeError(error) });
    });
  }
  return outcome;
};
