/**
 * One API call as the try-it form and its snippets describe it. The form sends the URL built
 * here and the snippets print it, so what you copy is exactly what was sent. Pure: no DOM, no
 * Node, safe on the server and in the browser.
 */

/** The environment variable every snippet reads the key from; a snippet never holds a real key. */
export const KEY_ENV_VAR = "SOCIAL_LOOKUP_API_KEY";

export type QueryParam = readonly [name: string, value: string];

export type ApiCall = {
  /** Where the API is reached, e.g. "https://lookup.example.com"; "" for a same-origin relative URL. */
  baseUrl: string;
  /** The operation's /v1 path (from the registry). */
  path: string;
  /** Query parameters in form order. */
  params: readonly QueryParam[];
};

/**
 * The parameters that travel: an empty field is left out, as the API treats an empty value
 * like an absent one and a snippet with `cursor=` would only confuse. A lone surrogate (no
 * character at all) becomes U+FFFD, as URLSearchParams would send it, so every snippet agrees.
 */
export const sentParams = (params: readonly QueryParam[]): QueryParam[] =>
  params.filter(([, value]) => value !== "").map(([name, value]) => [name.toWellFormed(), value.toWellFormed()]);

/**
 * application/x-www-form-urlencoded, as URLSearchParams (and so the server, fetch and Python's
 * requests) reads it: space → "+", "&" → "%26", "=" → "%3D", non-ASCII → UTF-8 percent-escapes.
 */
export const queryString = (params: readonly QueryParam[]): string =>
  new URLSearchParams(sentParams(params).map(([name, value]) => [name, value])).toString();

/** The full URL of the call: base URL (without a trailing slash) + path + query. */
export const callUrl = (call: ApiCall): string => {
  const query = queryString(call.params);
  return `${call.baseUrl.replace(/\/+$/, "")}${call.path}${query === "" ? "" : `?${query}`}`;
};
