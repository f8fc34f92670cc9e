/**
 * "This key changed" (revoked, rolled, owner disabled): listeners drop what they cached about it.
 * Announced in-process at once and, when a transport is attached (Redis pub/sub with several
 * instances), to every other instance too.
 */
type Listener = (keyId: string | null) => void;
type Transport = (keyId: string | null) => void;

const holder = globalThis as typeof globalThis & {
  __socialLookupKeyListeners?: Set<Listener>;
  __socialLookupKeyTransport?: Transport;
};
const listeners = (holder.__socialLookupKeyListeners ??= new Set<Listener>());

export const onKeyChanged = (listener: Listener): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

const notifyLocal = (keyId: string | null) => {
  for (const listener of listeners) listener(keyId);
};

/** keyId null: every key may have changed (e.g. a user was disabled). */
export const keyChanged = (keyId: string | null): void => {
  notifyLocal(keyId);
  holder.__socialLookupKeyTransport?.(keyId);
};

/** Connects this process to the other instances: outgoing changes are published, incoming ones notified here. */
export const attachKeyChangeTransport = (publish: Transport): ((keyId: string | null) => void) => {
  holder.__socialLookupKeyTransport = publish;
  return notifyLocal;
};
