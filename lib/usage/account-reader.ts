import type { Queryable } from "@/lib/db/client";
import type { AccountData } from "./account-schema";
import { keyAccounts } from "./account";

/**
 * Balance reads by group: the reads that arrive while one is running wait for the next, which
 * answers them all with one statement (lib/usage/account.ts keyAccounts) — one round trip and one
 * plan for many polls, as settlement groups its writes. A read only ever joins a statement that
 * has not started yet, so every answer is as fresh as a read of its own: it reflects every charge
 * settled before the request asked. Nothing is kept between reads.
 */
export type AccountReader = {
  /** The key's figures; null when the key is not (or no longer) usable. */
  read(keyId: string): Promise<AccountData["key"] | null>;
};

type Waiting = { keyId: string; resolve: (key: AccountData["key"] | null) => void; reject: (error: unknown) => void };

/** Reads per statement at most (the rest wait for the next): bounds the statement's key list. */
const MAX_READS_PER_STATEMENT = 1000;

export const createAccountReader = (db: () => Promise<Queryable>): AccountReader => {
  let queue: Waiting[] = [];
  let reading: Promise<void> | null = null;
  let scheduled = false;

  const readGroup = async (group: Waiting[]) => {
    try {
      const accounts = await keyAccounts(await db(), [...new Set(group.map((waiting) => waiting.keyId))]);
      for (const waiting of group) waiting.resolve(accounts.get(waiting.keyId) ?? null);
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  };

  const drain = async () => {
    while (queue.length > 0) {
      const group = queue.slice(0, MAX_READS_PER_STATEMENT);
      queue = queue.slice(MAX_READS_PER_STATEMENT);
      await readGroup(group);
    }
    reading = null;
  };

  // The first read of a group waits for the end of this event-loop turn, so that the requests
  // handled in the same turn share its statement.
  const schedule = () => {
    if (scheduled || reading) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      reading ??= drain();
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
