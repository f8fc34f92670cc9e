import { apiErrorOf, NetworkError, RedirectRefusedError, RequestTimeoutError, type ApiError } from "./errors.js";
import type { Answer, CallOptions, CreditReceipt, RetryEvent } from "./types.js";

/**
 * The one place the SDK talks HTTP: the key, timeouts and abort signals, retries, and turning an
 * answer into data or a typed error. Retries, in order of precedence:
 * - 429 with Retry-After (or the RateLimit headers): wait exactly that long and send again, up to
 *   maxRateLimitWaits times in a row; a 429 without them (a quota) is the answer.
 * - no answer (network) or 5xx: jittered exponential backoff, at most maxRetries times, for calls
 *   that are safe to repeat (GET; a POST only when the connection was refused, so it never left).
 *   A lookup that fails is not charged, so repeating it costs nothing.
 * - 400, 401, 402, 403, 404 (and 409, 413): never.
 * Redirects: followed within the baseUrl's origin (at most 5); one to another origin is a
 * RedirectRefusedError, never followed, so the key and the request body stay with that origin.
 */
export type TransportOptions = {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  maxRateLimitWaits: number;
  fetch: typeof fetch;
  onRetry: ((event: RetryEvent) => void) | null;
};

export type RequestSpec = {
  method: "GET" | "POST";
  path: string;
  query?: URLSearchParams;
  /** Sent as JSON. */
  body?: unknown;
  /** Safe to send again after a network error or a 5xx. */
  idempotent: boolean;
};

type Envelope = { code: number; message: string; data: unknown; requestId: string };

const isEnvelope = (value: unknown): value is Envelope =>
  typeof value === "object" && value !== null && "code" in value && "message" in value && typeof (value as { message: unknown }).message === "string";

const numberHeader = (headers: Headers, name: string): number | null => {
  const value = headers.get(name);
  if (value === null || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
};

export const receiptOf = (headers: Headers): CreditReceipt => ({
  cost: numberHeader(headers, "x-credits-cost"),
  charged: numberHeader(headers, "x-credits-charged") ?? 0,
  remaining: numberHeader(headers, "x-credits-remaining"),
});

/** Seconds a 429 says to wait: Retry-After, else RateLimit-Reset, else the RateLimit field's t; null: no retry. */
export const retryAfterOf = (headers: Headers): number | null => {
  const retryAfter = numberHeader(headers, "retry-after") ?? numberHeader(headers, "ratelimit-reset");
  if (retryAfter !== null) return Math.max(0, retryAfter);
  const field = headers.get("ratelimit")?.match(/;\s*t=(\d+(?:\.\d+)?)/);
  return field?.[1] === undefined ? null : Number(field[1]);
};

const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Full backoff before retry `attempt` (1-based), half of it fixed and half random. */
const backoffMs = (attempt: number, options: TransportOptions): number => {
  const ceiling = Math.min(options.retryMaxDelayMs, options.retryBaseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * fetch, following redirects by hand within the URL's origin only: fetch itself would carry the
 * key to wherever a redirect points (a proxy's misconfiguration, a hostile server). As fetch
 * does, a 303 (and a 301 or 302 after a POST) continues as a GET without a body.
 */
const fetchWithinOrigin = async (fetcher: typeof fetch, url: string, init: RequestInit & { method: string }): Promise<Response> => {
  let current = new URL(url);
  let request = init;
  for (let redirects = 0; ; redirects += 1) {
    const response = await fetcher(current.toString(), { ...request, redirect: "manual" });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null || redirects === MAX_REDIRECTS) return response;
    const next = new URL(location, current);
    await response.body?.cancel();
    if (next.origin !== current.origin) throw new RedirectRefusedError(response.status, current.origin, next.origin);
    const asGet = response.status === 303 || ((response.status === 301 || response.status === 302) && request.method === "POST");
    if (asGet) {
      const { "Content-Type": _type, ...headers } = request.headers as Record<string, string>;
      request = { ...request, method: "GET", body: undefined, headers };
    }
    current = next;
  }
};

/** A refused connection never reached the server: even a POST may be sent again. */
const neverSent = (error: unknown): boolean => {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined;
  return code === "ECONNREFUSED";
};

export class Transport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  /** The answer's envelope data with its receipt; a typed error for anything but 2xx. */
  async json<Data>(spec: RequestSpec, options: CallOptions = {}): Promise<Answer<Data>> {
    return this.#send(spec, options, async (response, signalTimedOut) => {
      let envelope: unknown;
      try {
        envelope = await response.json();
      } catch (error) {
        throw signalTimedOut() ? new RequestTimeoutError(`no answer within ${this.#timeoutOf(options)} ms`, { cause: error }) : new NetworkError(`the answer could not be read: ${String(error)}`, { cause: error });
      }
      if (!isEnvelope(envelope)) throw new NetworkError(`the answer to ${spec.path} is not the API's envelope`);
      return {
        data: envelope.data as Data,
        credits: receiptOf(response.headers),
        requestId: envelope.requestId,
        status: response.status,
        dataAsOf: response.headers.get("x-data-as-of"),
      };
    });
  }

  /** A 2xx answer whose body the caller reads (a results file), or a typed error. */
  async stream(spec: RequestSpec, options: CallOptions = {}): Promise<Response> {
    return this.#send(spec, options, async (response) => response);
  }

  #timeoutOf(options: CallOptions): number {
    return options.timeoutMs ?? this.#options.timeoutMs;
  }

  async #send<T>(spec: RequestSpec, options: CallOptions, read: (response: Response, timedOut: () => boolean) => Promise<T>): Promise<T> {
    const url = `${this.#options.baseUrl}${spec.path}${spec.query === undefined || spec.query.size === 0 ? "" : `?${spec.query.toString()}`}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#options.apiKey}`, Accept: "application/json" };
    if (spec.body !== undefined) headers["Content-Type"] = "application/json";
    if (options.cacheControl !== undefined) headers["Cache-Control"] = options.cacheControl;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const maxRetries = options.maxRetries ?? this.#options.maxRetries;
    let retries = 0;
    let rateLimitWaits = 0;

    for (;;) {
      options.signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(this.#timeoutOf(options));
      const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
      const timedOut = () => timeout.aborted && !(options.signal?.aborted ?? false);
      let response: Response;
      try {
        response = await fetchWithinOrigin(this.#options.fetch, url, { method: spec.method, headers, body, signal });
      } catch (error) {
        if (error instanceof RedirectRefusedError) throw error;
        if (options.signal?.aborted) throw options.signal.reason;
        const failure = timedOut()
          ? new RequestTimeoutError(`no answer from ${spec.path} within ${this.#timeoutOf(options)} ms`, { cause: error })
          : new NetworkError(`${spec.method} ${spec.path} failed: ${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)}`, { cause: error });
        if (retries >= maxRetries || !(spec.idempotent || neverSent(error))) throw failure;
        retries += 1;
        await this.#wait({ reason: "network", attempt: retries, waitMs: backoffMs(retries, this.#options), status: null, retryAfterS: null, requestId: null }, options.signal);
        continue;
      }
      if (response.ok) {
        try {
          return await read(response, timedOut);
        } catch (error) {
          if (options.signal?.aborted) throw options.signal.reason;
          if (!(error instanceof NetworkError) || retries >= maxRetries || !spec.idempotent) throw error;
          retries += 1;
          await this.#wait({ reason: "network", attempt: retries, waitMs: backoffMs(retries, this.#options), status: null, retryAfterS: null, requestId: null }, options.signal);
          continue;
        }
      }
      const failure = await this.#failureOf(response);
      if (response.status === 429) {
        const retryAfterS = (failure as { retryAfterS?: number | null }).retryAfterS ?? null;
        if (retryAfterS === null || rateLimitWaits >= this.#options.maxRateLimitWaits) throw failure;
        rateLimitWaits += 1;
        await this.#wait({ reason: "rate_limited", attempt: rateLimitWaits, waitMs: Math.ceil(retryAfterS * 1000), status: 429, retryAfterS, requestId: failure.requestId }, options.signal);
        continue;
      }
      if (response.status >= 500 && spec.idempotent && retries < maxRetries) {
        retries += 1;
        await this.#wait({ reason: "server_error", attempt: retries, waitMs: backoffMs(retries, this.#options), status: response.status, retryAfterS: null, requestId: failure.requestId }, options.signal);
        continue;
      }
      throw failure;
    }
  }

  async #wait(event: RetryEvent, signal: AbortSignal | undefined): Promise<void> {
    this.#options.onRetry?.(event);
    await sleep(event.waitMs, signal);
  }

  async #failureOf(response: Response): Promise<ApiError> {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // The status says enough.
    }
    let envelope: unknown = null;
    try {
      envelope = JSON.parse(text);
    } catch {
      // Not an envelope (a proxy's page, a bare 413): the status speaks.
    }
    const parsed = isEnvelope(envelope) ? envelope : null;
    return apiErrorOf(
      {
        status: response.status,
        code: parsed !== null && typeof parsed.code === "number" ? parsed.code : response.status,
        message: parsed?.message ?? `HTTP ${response.status}${response.statusText === "" ? "" : ` ${response.statusText}`}`,
        requestId: (parsed !== null && typeof parsed.requestId === "string" ? parsed.requestId : null) ?? response.headers.get("x-request-id"),
        credits: response.headers.has("x-credits-charged") ? receiptOf(response.headers) : null,
      },
      response.status === 429 ? retryAfterOf(response.headers) : null,
    );
  }
}

export { sleep };
