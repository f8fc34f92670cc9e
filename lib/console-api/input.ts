import type { DomainErrorCode } from "@/lib/errors";

/**
 * Text the console API accepts at all, whatever the route: no NUL (PostgreSQL cannot store it
 * and would answer with an error), no lone UTF-16 surrogates (they have no UTF-8 form), valid
 * UTF-8 in percent-escapes and bodies, and JSON bodies of sane size and depth. A problem is a
 * sentence for a 400; null means the text is fine. No HTTP in here.
 */
export const MAX_JSON_BODY_BYTES = 1_000_000;
export const MAX_JSON_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const textProblem = (value: string): string | null => {
  if (value.includes("\u0000")) return "must not contain NUL characters";
  if (LONE_SURROGATE.test(value)) return "must be valid Unicode text";
  return null;
};

const decodeComponent = (raw: string): string | null => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
};

/** Path segments and query names/values of a URL, as sent (still percent-encoded). */
export const urlProblem = (url: URL): string | null => {
  for (const segment of url.pathname.split("/")) {
    const decoded = decodeComponent(segment);
    if (decoded === null) return "The address contains an invalid percent-encoded character (not UTF-8).";
    const problem = textProblem(decoded);
    if (problem) return `The address ${problem}.`;
  }
  for (const part of url.search.replace(/^\?/, "").split("&")) {
    if (part === "") continue;
    for (const piece of part.split("=")) {
      const decoded = decodeComponent(piece.replace(/\+/g, " "));
      if (decoded === null) return "The query string contains an invalid percent-encoded character (not UTF-8).";
      const problem = textProblem(decoded);
      if (problem) return `The query string ${problem}.`;
    }
  }
  return null;
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

export type ParsedBody =
  | { ok: true; value: unknown }
  | { ok: false; code: Extract<DomainErrorCode, "body_too_large" | "invalid_text" | "invalid_json" | "invalid_request">; message: string };

/** A JSON body from its bytes: valid UTF-8, valid JSON, not too deep, every string and name clean. */
export const parseJsonBody = (bytes: Uint8Array): ParsedBody => {
  if (bytes.byteLength > MAX_JSON_BODY_BYTES) {
    return { ok: false, code: "body_too_large", message: "The request body is larger than 1 MB." };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, code: "invalid_text", message: "The request body is not valid UTF-8." };
  }
  if (text.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: "invalid_json", message: "The request body is not valid JSON." };
  }
  // Iterative, so that no nesting depth can overflow the stack before the limit says no.
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: "body", depth: 0 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (item.depth > MAX_JSON_DEPTH) {
      return { ok: false, code: "invalid_request", message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` };
    }
    if (typeof item.value === "string") {
      const problem = textProblem(item.value);
      if (problem) return { ok: false, code: "invalid_text", message: `${item.path}: ${problem}.` };
    } else if (Array.isArray(item.value)) {
      item.value.forEach((entry, index) => pending.push({ value: entry, path: `${item.path}.${index}`, depth: item.depth + 1 }));
    } else if (typeof item.value === "object" && item.value !== null) {
      for (const [name, entry] of Object.entries(item.value)) {
        const problem = textProblem(name);
        if (problem) return { ok: false, code: "invalid_text", message: `A field name in ${item.path} ${problem}.` };
        pending.push({ value: entry, path: `${item.path}.${name.slice(0, 40)}`, depth: item.depth + 1 });
      }
    }
  }
  return { ok: true, value };
};
