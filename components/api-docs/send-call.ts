import { AUTHENTICATED_HEADERS } from "@/lib/openapi/headers";
import { lookupUrl } from "@/lib/query/fetch-lookup";
import { callUrl, sentParams, type QueryParam } from "@/lib/snippets/call";

/**
 * The two ways a try-it form sends its call, and what it shows of the answer. Console sends go
 * through the console API (the key stays on the server); pasted-key sends go from the browser
 * straight to /v1 with the Authorization header, exactly as the snippets do. Neither stores or
 * logs the key.
 */
export type SendVia = "console" | "token";

/** The response headers worth reading, in display order (RateLimit-* also matches any later addition). */
export const SHOWN_HEADERS = [...AUTHENTICATED_HEADERS, "Retry-After", "X-Data-As-Of", "X-Cache"] as const;

export type TryResponse = {
  kind: "response";
  via: SendVia;
  status: number;
  /** [display name, value] of the headers that matter, in SHOWN_HEADERS order. */
  headers: [string, string][];
  /** Pretty-printed JSON, or the raw text when the body is not JSON. */
  body: string;
  /** The parsed body, for follow-ups such as the next followers page. */
  json: unknown;
  durationMs: number;
};

export type TryFailure = { kind: "failure"; via: SendVia; message: string };

export type TryOutcome = TryResponse | TryFailure;

const canonicalName = (lowerName: string): string => {
  const known = SHOWN_HEADERS.find((name) => name.toLowerCase() === lowerName);
  if (known) return known;
  return lowerName.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
};

export const shownHeaders = (headers: Headers): [string, string][] => {
  const order = (name: string) => {
    const index = SHOWN_HEADERS.findIndex((shown) => shown.toLowerCase() === name);
    return index === -1 ? SHOWN_HEADERS.length : index;
  };
  return [...headers.entries()]
    .filter(([name]) => order(name) < SHOWN_HEADERS.length || name.startsWith("ratelimit-"))
    .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))
    .map(([name, value]) => [canonicalName(name), value]);
};

const readBody = (text: string): { body: string; json: unknown } => {
  if (text === "") return { body: "(empty body)", json: null };
  try {
    const json: unknown = JSON.parse(text);
    return { body: JSON.stringify(json, null, 2), json };
  } catch {
    return { body: text, json: null };
  }
};

export type SendRequest = {
  operation: string;
  /** The operation's /v1 path. */
  path: string;
  params: readonly QueryParam[];
  via: SendVia;
  /** Only for via "token": the pasted key, used for this one request. */
  token?: string;
  signal: AbortSignal;
};

/** Sends one call and reads what the answer says; network and header errors become a failure to show. */
export const sendCall = async ({ operation, path, params, via, token, signal }: SendRequest): Promise<TryOutcome> => {
  const started = performance.now();
  try {
    const response =
      via === "console"
        ? await fetch(lookupUrl(operation, Object.fromEntries(sentParams(params))), {
            headers: { Accept: "application/json" },
            credentials: "same-origin",
            cache: "no-store",
            signal,
          })
        : await fetch(callUrl({ baseUrl: "", path, params }), {
            headers: { Accept: "application/json", Authorization: `Bearer ${token ?? ""}` },
            // Exactly what an outside client sends: no session cookie rides along.
            credentials: "omit",
            cache: "no-store",
            signal,
          });
    const { body, json } = readBody(await response.text());
    return {
      kind: "response",
      via,
      status: response.status,
      headers: shownHeaders(response.headers),
      body,
      json,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    if (signal.aborted) throw error;
    // fetch refuses a header value with a line break or non-Latin-1 characters before sending.
    const message =
      error instanceof TypeError && via === "token" && /header/i.test(error.message)
        ? "That key contains characters an HTTP header cannot carry. Paste the key alone."
        : "Could not reach the server. Check your connection and try again.";
    return { kind: "failure", via, message };
  }
};

/** 200 followers page → the values for the next page (node_id + cursor, userid cleared), else null. */
export const nextFollowersPage = (json: unknown): Record<string, string> | null => {
  if (typeof json !== "object" || json === null || !("data" in json)) return null;
  const data = json.data;
  if (typeof data !== "object" || data === null || !("node_id" in data) || !("page_info" in data)) return null;
  const pageInfo = data.page_info;
  if (typeof pageInfo !== "object" || pageInfo === null || !("has_next_page" in pageInfo) || !("end_cursor" in pageInfo)) return null;
  if (pageInfo.has_next_page !== true || typeof pageInfo.end_cursor !== "string" || typeof data.node_id !== "string") return null;
  return { userid: "", node_id: data.node_id, cursor: pageInfo.end_cursor };
};
