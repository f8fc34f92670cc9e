import type { Queryable } from "@/lib/db/client";
import type { AccountData } from "./account-schema";
import { keyAccounts } from "./account";

/**
 * Balance reads by group: up to MAX_STATEMENTS_IN_FLIGHT statements run at once, each started for
 * the reads waiting when it starts; reads that arrive while all of them run wait for the next,
 * which answers them all with one statement (lib/usage/account.ts keyAccounts) — one round trip
 * and one plan for many polls, as settlement groups its writes. A read only ever joins a statement
 * that has not started yet, so every answer is as fresh as a read of its own: it reflects every
 * charge settled before the request asked. Nothing is kept between reads. A lone poller never
 * waits for another's statement: grouping only sets in when polls pile up (a single statement at
 * a time doubled another user's balance latency while exports loaded the embedded database).
 */
export type AccountReader = {
  /** The key's figures; null when the key is not (or no longer) usable. */
  read(keyId: string): Promise<AccountData["key"] | null>;
};

type Waiting = { keyId: string; resolve: (key: AccountData["key"] | null) => void; reject: (error: unknown) => void };

/** Reads per statement at most (the rest wait for the next): bounds the statement's key list. */
const MAX_READS_PER_STATEMENT = 1000;

/** Statements in flight at once; more reads than that wait, grouped, for the next to start. */
const MAX_STATEMENTS_IN_FLIGHT = 2;

export const createAccountReader = (db: () => Promise<Queryable>): AccountReader => {
  let queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const readGroup = async (group: Waiting[]) => {
    try {
      const accounts = await keyAccounts(await db(), [...new Set(group.map((waiting) => waiting.keyId))]);
      for (const waiting of group) waiting.resolve(accounts.get(waiting.keyId) ?? null);
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  };

  const pump = () => {
    while (inFlight < MAX_STATEMENTS_IN_FLIGHT && queue.length > 0) {
      const group = queue.slice(0, MAX_READS_PER_STATEMENT);
      queue = queue.slice(MAX_READS_PER_STATEMENT);
      inFlight += 1;
      void readGroup(group).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  // The first read of a group waits for the end of this event-loop turn, so that the requests
  // handled in the same turn share its statement.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  };

  return {
    read: (keyId) =>
      new Promise((resolve, reject) => {
        queue.push({ keyId, resolve, reject });
        schedule();
      }),
  };
};
