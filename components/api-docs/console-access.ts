import { useSyncExternalStore } from "react";
import { signedInEmail } from "@/lib/query/account";
import { ConsoleApiError, fetchJson } from "@/lib/query/fetch-json";
import type { MeterData } from "@/lib/query/meter";

/**
 * Whether this visitor can send with a console key, shared by every try-it form on /api-docs
 * (one check per page view, not one per form). The page is public and outside the console's
 * query client, so this is a small store of its own: next-auth's session endpoint first (it
 * answers 200 signed in or out, so signed-out visitors see no failed request), and only for a
 * session the console key and its balance.
 */
export type ConsoleKeySummary = { name: string; creditsRemaining: number };

export type ConsoleAccess =
  | { status: "checking" }
  | { status: "signed-out" }
  | { status: "signed-in"; email: string; key: ConsoleKeySummary | null };

const CHECKING: ConsoleAccess = { status: "checking" };

let access: ConsoleAccess = CHECKING;
let started = false;
const listeners = new Set<() => void>();

const publish = (next: ConsoleAccess) => {
  access = next;
  for (const listener of listeners) listener();
};

const check = async (): Promise<ConsoleAccess> => {
  const email = await signedInEmail().catch(() => null);
  if (!email) return { status: "signed-out" };
  try {
    const meter = await fetchJson<MeterData>("/api/console/meter");
    // What the key can really spend (its caps and the member's budget count), as the meter shows it.
    return { status: "signed-in", email, key: meter.key ? { name: meter.key.name, creditsRemaining: meter.key.creditsSpendable } : null };
  } catch (error) {
    // The cookie outlived the session (signed out elsewhere, account disabled).
    if (error instanceof ConsoleApiError && error.status === 401) return { status: "signed-out" };
    return { status: "signed-in", email, key: null };
  }
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  if (!started) {
    started = true;
    void check().then(publish);
  }
  return () => {
    listeners.delete(listener);
  };
};

export const useConsoleAccess = (): ConsoleAccess =>
  useSyncExternalStore(subscribe, () => access, () => CHECKING);

/** A console-key answer carries the key's balance (X-Credits-Remaining): every form shows it. */
export const noteConsoleCredits = (creditsRemaining: number): void => {
  if (access.status !== "signed-in" || !access.key) return;
  publish({ ...access, key: { ...access.key, creditsRemaining } });
};

/** The console answered that the session is gone (401) or that no console key is chosen (409). */
export const noteConsoleRefusal = (status: number): void => {
  if (access.status !== "signed-in") return;
  if (status === 401) publish({ status: "signed-out" });
  else if (status === 409) publish({ ...access, key: null });
};
