import { fairShares } from "./concurrency";

/**
 * The process's bound on batch lookups in flight, shared fairly in two ways: a free place goes to
 * the batch whose turn it is (round robin over the batches waiting), not to the first in line, so
 * a batch of 100,000 inputs asking again and again never starves a batch of 10 that asks once;
 * and each batch says how many it wants in flight and keeps to its fair share of the bound, so a
 * batch with a fast key cannot hold the places a slower one needs.
 */
export type FairGate = {
  /** Resolves with the release of one place, when this batch's turn comes. */
  acquire(batchId: string): Promise<() => void>;
  inUse(): number;
  /** This batch would keep `lookups` in flight; returns how many it may (its fair share, at least one). */
  want(batchId: string, lookups: number): number;
  /** The batch ended: its demand no longer counts. */
  leave(batchId: string): void;
};

export const createFairGate = (capacity: number): FairGate => {
  let used = 0;
  const waiting = new Map<string, (() => void)[]>();
  /** Batches with someone waiting, in turn order. */
  const turns: string[] = [];
  const demands = new Map<string, number>();

  const release = () => {
    used -= 1;
    handOut();
  };

  const handOut = () => {
    while (used < capacity) {
      const batchId = turns.shift();
      if (batchId === undefined) return;
      const queue = waiting.get(batchId);
      const next = queue?.shift();
      if (queue && queue.length > 0) turns.push(batchId);
      else waiting.delete(batchId);
      if (next) {
        used += 1;
        next();
      }
    }
  };

  return {
    acquire: (batchId) =>
      new Promise((resolve) => {
        let released = false;
        const grant = () =>
          resolve(() => {
            if (released) return;
            released = true;
            release();
          });
        const queue = waiting.get(batchId);
        if (queue) queue.push(grant);
        else {
          waiting.set(batchId, [grant]);
          turns.push(batchId);
        }
        handOut();
      }),
    inUse: () => used,
    want: (batchId, lookups) => {
      demands.set(batchId, Math.max(1, Math.floor(lookups)));
      return fairShares(capacity, demands).get(batchId) ?? 1;
    },
    leave: (batchId) => {
      demands.delete(batchId);
    },
  };
};
