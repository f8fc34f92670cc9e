/**
 * "This key changed" (revoked, rolled, owner disabled): listeners drop what they cached about it.
 * In-process now; a cross-instance transport (Redis pub/sub) can subscribe and republish here.
 */
type Listener = (keyId: string | null) => void;

const holder = globalThis as typeof globalThis & { __socialLookupKeyListeners?: Set<Listener> };
const listeners = (holder.__socialLookupKeyListeners ??= new Set<Listener>());

export const onKeyChanged = (listener: Listener): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** keyId null: every key may have changed (e.g. a user was disabled). */
export const keyChanged = (keyId: string | null): void => {
  for (const listener of listeners) listener(keyId);
};
