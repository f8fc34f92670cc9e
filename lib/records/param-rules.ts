/**
 * The rules of the operations' query parameters as plain data, written once: the console's inputs
 * check them in the browser (without zod, ≈32 kB gzip on every lookup page), and lib/records/params.ts
 * builds the /v1 zod schemas (and so the OpenAPI document) from them.
 */
export const MAX_PARAM_LENGTH = 2048;

export type ParamRule = {
  /** Longest accepted value, in UTF-16 code units (zod's .max()). */
  maxLength?: number;
  pattern?: RegExp;
  /** Smallest accepted value, read as a number (the page number). */
  minimum?: number;
};

export const paramRules = {
  url: { maxLength: MAX_PARAM_LENGTH },
  event_id: { pattern: /^\d{1,20}$/ },
  userid: { pattern: /^\d{1,20}$/ },
  node_id: { maxLength: 200, pattern: /^[A-Za-z0-9+/=_-]+$/ },
  cursor: { maxLength: 500, pattern: /^[A-Za-z0-9_.-]+$/ },
  urn: { maxLength: 200, pattern: /^urn:li:[A-Za-z_]+:[A-Za-z0-9_-]{1,100}$/ },
  page: { pattern: /^\d{1,6}$/, minimum: 1 },
} as const satisfies Record<string, ParamRule>;

export type ParamName = keyof typeof paramRules;

/** Whether /v1 accepts this value of the parameter (absence and repetition are the caller's). */
export const acceptsParam = (name: ParamName, value: string): boolean => {
  const rule: ParamRule = paramRules[name];
  if (rule.maxLength !== undefined && value.length > rule.maxLength) return false;
  if (rule.pattern !== undefined && !rule.pattern.test(value)) return false;
  return rule.minimum === undefined || Number(value) >= rule.minimum;
};

/** The path of an event page; its one group is the event id. */
export const EVENT_PAGE_PATH = /^\/events\/(\d{1,20})\/?$/;

/** A host is accepted with or without "www." / "m.", in any case; "*" accepts every host. */
export const isEventSiteHost = (host: string, hosts: readonly string[]): boolean =>
  hosts.includes("*") || hosts.includes(host.toLowerCase().replace(/^(www\.|m\.)/, ""));
