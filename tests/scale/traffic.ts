import { bearer, cluster, FOLLOWERS, instanceFor, send, type Answer, type IssuedKey } from "./harness";

/**
 * Steady traffic for the fault tests: `workers` loops, each sending the next followers lookup as
 * soon as its last one was answered, to the instances in turn (or, `viaBalancer`, to the test
 * balancer in front of them), until stopped. Every answer is kept with when it was sent,
 * relative to the start.
 */
export type Sample = { sentAtMs: number; doneAtMs: number; /** -1: through the balancer (it chose). */ instance: number; answer: Answer };

export type Traffic = {
  /** Milliseconds since the traffic started. */
  now(): number;
  /** A wall-clock instant (Date.now(), maybe of another process) as milliseconds since the traffic started. */
  fromEpoch(epochMs: number): number;
  samples(): readonly Sample[];
  stop(): Promise<Sample[]>;
};

/** A client-side limit far above any timeout of the server: reaching it means the server hung. */
export const HANG_MS = 15_000;

export const startTraffic = (
  key: IssuedKey,
  options: { workers: number; path?: string; onlyInstance?: number; viaBalancer?: boolean },
): Traffic => {
  const balancerPort = Number(new URL(cluster().proxyUrl).port);
  const startedAt = performance.now();
  const startedAtEpochMs = Date.now();
  const now = () => performance.now() - startedAt;
  const samples: Sample[] = [];
  let running = true;
  let sequence = 0;
  const worker = async () => {
    while (running) {
      const target = options.onlyInstance ?? sequence;
      sequence += 1;
      const instance = options.viaBalancer ? null : instanceFor(target);
      const sentAtMs = now();
      const answer = await send(instance?.port ?? balancerPort, options.path ?? FOLLOWERS, { headers: bearer(key.token), timeoutMs: HANG_MS });
      samples.push({ sentAtMs, doneAtMs: now(), instance: instance?.index ?? -1, answer });
    }
  };
  const workers = Array.from({ length: options.workers }, worker);
  return {
    now,
    fromEpoch: (epochMs) => epochMs - startedAtEpochMs,
    samples: () => samples,
    stop: async () => {
      running = false;
      await Promise.all(workers);
      return samples;
    },
  };
};

export const isErrorEnvelope = (answer: Answer, status: number, expectedMessage: string): boolean => {
  const body = answer.body as Record<string, unknown> | undefined;
  return (
    answer.status === status &&
    answer.headers["content-type"] === "application/json; charset=utf-8" &&
    typeof body === "object" &&
    body !== null &&
    JSON.stringify(Object.keys(body)) === JSON.stringify(["code", "message", "data", "requestId"]) &&
    body.code === status &&
    body.message === expectedMessage &&
    body.data === null &&
    typeof body.requestId === "string" &&
    answer.headers["x-request-id"] === body.requestId
  );
};

export const percentile = (values: readonly number[], fraction: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
};
