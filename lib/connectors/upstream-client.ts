import { DelegateBackoff, handleWhenResult, retry, type IRetryBackoffContext } from "cockatiel";
import { describeError, log } from "@/lib/log";
import { ATTR } from "@/lib/tracing/attributes";
import { NO_SPAN, tracingEnabled, withSpan, type TraceSpan } from "@/lib/tracing/spans";
import type { ProviderAnswer } from "./source";
import { sourceRateLimited } from "./types";
import { BreakerOpenError, NoSlotError, type UpstreamGuard } from "./upstream-resilience";

/**
 * HTTP calls to the upstream provider (an API of the same contract as ours): the envelope is
 * read and mapped, failures become typed errors. Only GETs go out, so every retry is safe:
 * timeouts, network errors and 5xx are retried with jittered exponential backoff, a 429 is
 * retried after its Retry-After when that fits our wait budget (else our own 429); cockatiel's
 * retry policy runs that loop. Each attempt passes the circuit breaker and takes a slot of the
 * concurrency cap (upstream-resilience.ts). The provider key travels
 * in the Authorization header only and is never logged.
 */

/** Whose provider key a call uses: the deployment's shared key or one user's own. */
export type KeyOwner = { kind: "shared" } | { kind: "user"; userId: string };

export type ProviderCredentials = { baseUrl: string; apiKey: string; owner: KeyOwner };

export type { ProviderAnswer };

/** Any upstream failure: the lookup answers 500 and its reserved credits are refunded. */
export class UpstreamError extends Error {
  override name = "UpstreamError";
}
/**
 * How an upstream call failed, as the metrics name it (upstream_errors_total{kind}). A call that
 * found no slot of the concurrency cap in time counts as a timeout: it waited as long as one.
 */
export type UpstreamFailureKind = "timeout" | "network" | "status_5xx" | "status_4xx" | "rate_limited" | "breaker_open" | "invalid_answer";

/** Timeouts, network errors, 5xx after the retries; the breaker being open; the cap's queue full. */
export class UpstreamUnavailableError extends UpstreamError {
  override name = "UpstreamUnavailableError";
  constructor(
    message: string,
    readonly failure: "timeout" | "network" | "status_5xx" | "breaker_open",
  ) {
    super(message);
  }
}
/** The provider refused our provider key: 401 (invalid) or 402 (its quota is used up). */
export class UpstreamKeyRejectedError extends UpstreamError {
  override name = "UpstreamKeyRejectedError";
  constructor(
    readonly httpStatus: 401 | 402,
    readonly owner: KeyOwner,
    message: string,
  ) {
    super(message);
  }
}
/** The provider answered something we cannot use (not the contract's envelope or shapes; an unexpected 4xx). */
export class UpstreamBadAnswerError extends UpstreamError {
  override name = "UpstreamBadAnswerError";
  constructor(
    message: string,
    readonly failure: "invalid_answer" | "status_4xx" = "invalid_answer",
  ) {
    super(message);
  }
}
/** No base URL or no shared key is configured (environment or admin settings). */
export class UpstreamNotConfiguredError extends UpstreamError {
  override name = "UpstreamNotConfiguredError";
}
/** Per-user key mode, and the key's owner has not added a provider key (or the key has no owner). */
export class NoProviderKeyError extends UpstreamError {
  override name = "NoProviderKeyError";
  constructor(readonly userId: string | null) {
    super(userId === null ? "no provider key: the API key has no owner" : `no provider key for user ${userId}`);
  }
}

export type UpstreamHealth = "idle" | "ok" | "key_rejected" | "unavailable" | "rate_limited" | "bad_answer";

export type UpstreamStatus = {
  /** The outcome of the latest call that used the shared key (per-user keys report to their owners). */
  status: UpstreamHealth;
  lastError: { at: string; kind: UpstreamHealth; message: string } | null;
  lastSuccessAt: string | null;
};

export type UpstreamClient = {
  get(credentials: ProviderCredentials, path: string, query: Record<string, string>): Promise<ProviderAnswer>;
  status(): UpstreamStatus;
  readonly guard: UpstreamGuard<Classified>;
};

export type Classified =
  | { kind: "data"; data: unknown }
  | { kind: "not_found"; message: string }
  | { kind: "key_rejected"; httpStatus: 401 | 402; message: string }
  | { kind: "rate_limited"; retryAfterMs: number }
  | { kind: "retryable"; message: string }
  | { kind: "bad_answer"; message: string };

type Envelope = { code: number; message: string; data: unknown };

const MAX_MESSAGE_CHARS = 200;
const DEFAULT_RETRY_AFTER_MS = 1000;
const BACKOFF_BASE_MS = 200;

const clip = (text: string): string => (text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text);

const readEnvelope = (text: string): Envelope | null => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || !("code" in value) || !("message" in value)) return null;
  const { code, message } = value;
  if (typeof code !== "number" || typeof message !== "string") return null;
  return { code, message, data: "data" in value ? value.data : null };
};

const CLASSIFIED_KINDS: ReadonlySet<unknown> = new Set(["data", "not_found", "key_rejected", "rate_limited", "retryable", "bad_answer"]);

export const isClassified = (value: unknown): value is Classified =>
  typeof value === "object" && value !== null && "kind" in value && CLASSIFIED_KINDS.has(value.kind);

/** An answer that says the provider is unwell: counted by the breaker, retried with backoff. */
export const isProviderFailure = (classified: Classified): boolean => classified.kind === "retryable";

/** Retry-After is either whole seconds or an HTTP date. */
export const parseRetryAfterMs = (header: string | null, now: number): number | null => {
  if (header === null || header.trim() === "") return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
};

/** What an HTTP answer of the provider means to us. */
export const classifyAnswer = (httpStatus: number, text: string, retryAfterMs: number | null): Classified => {
  const envelope = readEnvelope(text);
  if (httpStatus === 200 && envelope?.code === 0) return { kind: "data", data: envelope.data };
  // A 200 carrying an error envelope is read by its code; anything else by the HTTP status.
  const code = httpStatus === 200 && envelope ? envelope.code : httpStatus;
  const message = clip(envelope?.message ?? `HTTP ${httpStatus}`);
  if (code === 401 || code === 402) return { kind: "key_rejected", httpStatus: code, message };
  if (code === 429) return { kind: "rate_limited", retryAfterMs: retryAfterMs ?? DEFAULT_RETRY_AFTER_MS };
  if (envelope && (code === 404 || /not found/i.test(envelope.message))) return { kind: "not_found", message };
  if (code >= 500) return { kind: "retryable", message: `HTTP ${httpStatus}: ${message}` };
  if (code === 404) return { kind: "bad_answer", message: "HTTP 404 without the API's envelope: check the upstream base URL" };
  if (code >= 300 && code < 400) return { kind: "bad_answer", message: `HTTP ${code} redirect: check the upstream base URL` };
  if (httpStatus === 200) return { kind: "bad_answer", message: "HTTP 200 without the API's envelope" };
  return { kind: "bad_answer", message: `HTTP ${httpStatus}: ${message}` };
};

export const providerUrl = (baseUrl: string, path: string, query: Record<string, string>): URL => {
  const url = new URL(path.replace(/^\/+/, ""), baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
};

type Attempt = { kind: "response"; status: number; text: string; retryAfter: string | null } | { kind: "failed"; message: string };

export type HttpDeps = { fetch?: typeof fetch; timeoutMs: number };

/** One GET with a timeout covering the whole answer (headers and body). */
export const attemptOnce = async (deps: HttpDeps, credentials: ProviderCredentials, url: URL): Promise<Attempt> => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.timeoutMs);
  try {
    const response = await (deps.fetch ?? fetch)(url, {
      headers: { Authorization: `Bearer ${credentials.apiKey}`, Accept: "application/json" },
      signal: controller.signal,
      // A redirect could carry the key elsewhere: it is reported, not followed.
      redirect: "manual",
    });
    const text = await response.text();
    return { kind: "response", status: response.status, text, retryAfter: response.headers.get("retry-after") };
  } catch (error) {
    if (controller.signal.aborted) return { kind: "failed", message: `timed out after ${deps.timeoutMs} ms` };
    return { kind: "failed", message: `network error: ${describeError(error)}` };
  } finally {
    clearTimeout(timer);
  }
};

/** attemptOnce's failed attempts: a timeout says "timed out", anything else is the network's. */
const failureOfAttempt = (message: string): "timeout" | "network" => (message.startsWith("timed out") ? "timeout" : "network");

const ownerField = (owner: KeyOwner): string => (owner.kind === "shared" ? "shared" : `user ${owner.userId}`);

export const createUpstreamClient = (deps: {
  timeoutMs: number;
  retries: number;
  maxRetryWaitMs: number;
  guard: UpstreamGuard<Classified>;
  fetch?: typeof fetch;
  random?: () => number;
  now?: () => number;
  /** Told when the provider refuses a key (per-user keys keep the refusal for their owner). */
  onKeyRejected?: (error: UpstreamKeyRejectedError) => void;
}): UpstreamClient => {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const state: UpstreamStatus = { status: "idle", lastError: null, lastSuccessAt: null };

  const note = (owner: KeyOwner, kind: UpstreamHealth, message?: string) => {
    if (owner.kind !== "shared" && kind === "key_rejected") return;
    state.status = kind;
    if (kind === "ok") state.lastSuccessAt = new Date(now()).toISOString();
    else state.lastError = { at: new Date(now()).toISOString(), kind, message: message ?? kind };
  };

  // Full jitter: a random wait up to base·2^retry, capped by the wait budget.
  const backoffMs = (retry: number) => Math.round(random() * Math.min(deps.maxRetryWaitMs, BACKOFF_BASE_MS * 2 ** retry));

  // Worth another attempt: a failure while the breaker still lets attempts out, or a 429 whose
  // Retry-After fits our wait budget.
  const worthRetrying = (value: unknown): boolean =>
    isClassified(value) &&
    ((value.kind === "retryable" && !deps.guard.isOpen()) || (value.kind === "rate_limited" && value.retryAfterMs <= deps.maxRetryWaitMs));

  const waitBeforeRetry = (context: IRetryBackoffContext<unknown>): number => {
    const value = "value" in context.result ? context.result.value : null;
    return isClassified(value) && value.kind === "rate_limited" ? value.retryAfterMs : backoffMs(context.attempt - 1);
  };

  // One span per call, retries included; the query (the inputs) and the key stay out of it.
  const get = (credentials: ProviderCredentials, path: string, query: Record<string, string>): Promise<ProviderAnswer> => {
    if (!tracingEnabled()) return getWithRetries(credentials, path, query);
    const { host, pathname } = new URL(providerUrl(credentials.baseUrl, path, {}));
    const attributes = { [ATTR.httpRequestMethod]: "GET", [ATTR.urlPath]: pathname, [ATTR.serverAddress]: host };
    return withSpan(`upstream GET ${pathname}`, attributes, (span) => getWithRetries(credentials, path, query, span), { kind: "client" });
  };

  const getWithRetries = async (credentials: ProviderCredentials, path: string, query: Record<string, string>, span: TraceSpan = NO_SPAN): Promise<ProviderAnswer> => {
    const url = providerUrl(credentials.baseUrl, path, query);
    const where = { path: url.pathname, owner: ownerField(credentials.owner) };
    const retrying = retry(handleWhenResult(worthRetrying), {
      maxAttempts: deps.retries,
      backoff: new DelegateBackoff(waitBeforeRetry),
    });
    retrying.onRetry((event) => {
      const value = "value" in event ? event.value : null;
      if (isClassified(value) && value.kind === "rate_limited") {
        log.warn("upstream rate-limited us; retrying after Retry-After", { ...where, retryAfterMs: value.retryAfterMs });
      } else {
        const error = isClassified(value) && value.kind === "retryable" ? value.message : "unknown";
        log.warn("upstream attempt failed; retrying", { ...where, attempt: event.attempt, waitMs: event.delay, error });
      }
    });

    let attempts = 0;
    // What the last attempt's failure was, for the metrics: the error thrown below carries it.
    const last: { failure: "timeout" | "network" | "status_5xx" | "status_4xx" } = { failure: "network" };
    const attempt = async (): Promise<Classified> => {
      attempts += 1;
      const result = await attemptOnce({ fetch: deps.fetch, timeoutMs: deps.timeoutMs }, credentials, url);
      span.setAttributes({ [ATTR.httpRequestResendCount]: attempts - 1, [ATTR.httpResponseStatusCode]: result.kind === "response" ? result.status : null });
      if (result.kind === "failed") {
        last.failure = failureOfAttempt(result.message);
        return { kind: "retryable", message: result.message };
      }
      last.failure = result.status >= 400 && result.status < 500 ? "status_4xx" : "status_5xx";
      return classifyAnswer(result.status, result.text, parseRetryAfterMs(result.retryAfter, now()));
    };

    let classified: Classified;
    try {
      classified = await retrying.execute(() => deps.guard.run(attempt, deps.timeoutMs));
    } catch (error) {
      if (error instanceof BreakerOpenError) throw new UpstreamUnavailableError(error.message, "breaker_open");
      if (error instanceof NoSlotError) throw new UpstreamUnavailableError(error.message, "timeout");
      throw error;
    }

    span.setAttributes({ [ATTR.upstreamOutcome]: classified.kind });
    switch (classified.kind) {
      case "data":
      case "not_found":
        note(credentials.owner, "ok");
        return classified;
      case "key_rejected": {
        const what = classified.httpStatus === 402 ? "its quota is used up" : "the key is invalid";
        const error = new UpstreamKeyRejectedError(
          classified.httpStatus,
          credentials.owner,
          `upstream provider refused the ${credentials.owner.kind === "shared" ? "shared" : "user's"} provider key (${classified.httpStatus}: ${what}; provider said "${classified.message}")`,
        );
        log.error("upstream provider refused our provider key", { ...where, httpStatus: classified.httpStatus, providerMessage: classified.message });
        note(credentials.owner, "key_rejected", error.message);
        deps.onKeyRejected?.(error);
        throw error;
      }
      case "rate_limited":
        note(credentials.owner, "rate_limited", `provider asked us to wait ${classified.retryAfterMs} ms`);
        throw sourceRateLimited(Math.max(1, Math.ceil(classified.retryAfterMs / 1000)));
      case "retryable":
        log.error("upstream failed", { ...where, attempts, error: classified.message });
        note(credentials.owner, "unavailable", classified.message);
        throw new UpstreamUnavailableError(
          `upstream failed after ${attempts} attempt(s): ${classified.message}`,
          last.failure === "status_4xx" ? "status_5xx" : last.failure,
        );
      case "bad_answer":
        log.error("upstream answered something unusable", { ...where, error: classified.message });
        note(credentials.owner, "bad_answer", classified.message);
        throw new UpstreamBadAnswerError(classified.message, last.failure === "status_4xx" ? "status_4xx" : "invalid_answer");
    }
  };

  return { get, status: () => ({ ...state }), guard: deps.guard };
};

/**
 * Checks a provider key with one call: the publication list of a URN that cannot exist. The
 * provider's order of checks (401 → 429 → 400 → 402 → 404) answers 401/402 for a bad or exhausted
 * key before it looks the URN up; a good key gets 404, which costs nothing on a provider that
 * charges only answers with data (as the contract does). At worst it costs 1 provider credit
 * (the cheapest operation) on a provider that charges every call.
 */
export type KeyCheck =
  | { ok: true }
  | { ok: false; reason: "rejected" | "exhausted" | "unreachable" | "rate_limited" | "bad_answer"; message: string };

export const KEY_CHECK_URN = "urn:li:social-lookup:provider-key-check";
/** The contract's publication list path (lib/operations/publications/source.ts declares the same; a test holds them equal). */
export const KEY_CHECK_PATH = "v1/jobsite/get_user_publications";

export const checkProviderKey = async (deps: HttpDeps, baseUrl: string, apiKey: string): Promise<KeyCheck> => {
  const credentials: ProviderCredentials = { baseUrl, apiKey, owner: { kind: "shared" } };
  const url = providerUrl(baseUrl, KEY_CHECK_PATH, { urn: KEY_CHECK_URN, page: "1" });
  const result = await attemptOnce(deps, credentials, url);
  if (result.kind === "failed") return { ok: false, reason: "unreachable", message: `The provider could not be reached (${result.message}).` };
  const classified = classifyAnswer(result.status, result.text, null);
  switch (classified.kind) {
    case "data":
    case "not_found":
      return { ok: true };
    case "key_rejected":
      return classified.httpStatus === 402
        ? { ok: false, reason: "exhausted", message: "The provider accepted this key but its quota is used up." }
        : { ok: false, reason: "rejected", message: "The provider rejected this key." };
    case "rate_limited":
      return { ok: false, reason: "rate_limited", message: "The provider is rate-limiting this key; try again in a moment." };
    case "retryable":
      return { ok: false, reason: "unreachable", message: `The provider failed to answer (${classified.message}).` };
    case "bad_answer":
      return { ok: false, reason: "bad_answer", message: `The provider's answer was not understood (${classified.message}).` };
  }
};
