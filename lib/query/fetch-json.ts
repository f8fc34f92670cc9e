/**
 * The browser's way to call the console JSON API: same-origin, JSON in and out, and failures
 * thrown as ConsoleApiError carrying the server's `{error: {code, message}}`, ready to show.
 */
export class ConsoleApiError extends Error {
  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ConsoleApiError";
  }
}

const readJson = (text: string): unknown => {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

const serverError = (body: unknown): { code?: string; message?: string } => {
  if (typeof body !== "object" || body === null || !("error" in body)) return {};
  const error = body.error;
  if (typeof error !== "object" || error === null) return {};
  return {
    code: "code" in error && typeof error.code === "string" ? error.code : undefined,
    message: "message" in error && typeof error.message === "string" ? error.message : undefined,
  };
};

export const fetchJson = async <T>(url: string, init: RequestInit = {}): Promise<T> => {
  const headers = new Headers(init.headers);
  if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  headers.set("Accept", "application/json");
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new ConsoleApiError(0, "network", "Could not reach the server. Check your connection and try again.");
  }
  const body = readJson(await response.text());
  if (!response.ok) {
    const { code, message } = serverError(body);
    throw new ConsoleApiError(
      response.status,
      code ?? `http_${response.status}`,
      message ?? `The server answered ${response.status}. Try again.`,
    );
  }
  // The console API's responses are typed by the route that answers; this is the one place they meet.
  return body as T;
};

/** Body of a JSON request: `fetchJson(url, jsonRequest("POST", input))`. */
export const jsonRequest = (method: "POST" | "PATCH" | "PUT" | "DELETE", body?: unknown): RequestInit => ({
  method,
  body: body === undefined ? undefined : JSON.stringify(body),
});
