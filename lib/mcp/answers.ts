import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { messages } from "@/lib/api/errors";
import { fitForAgent, MCP_MAX_BYTES, MCP_MAX_ITEMS, utf8BytesAtMost, type Cut, type Json } from "./fit";
import { outlineOf } from "./outline";

/**
 * What an agent reads back from a tool: the envelope's `data` as structuredContent with a short
 * text summary, or an `isError` result whose text is the contract's message followed by what to
 * do next. The text never holds a key or a token.
 */
export type Envelope = { code: number; message: string; data: Json; requestId: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The envelope of a pipeline answer (the body is ours: a parse failure is a bug, reported as such). */
export const readEnvelope = (body: string): Envelope => {
  const parsed: unknown = JSON.parse(body);
  if (!isRecord(parsed) || typeof parsed.code !== "number" || typeof parsed.message !== "string") {
    throw new Error("the pipeline answered something that is not an envelope");
  }
  return {
    code: parsed.code,
    message: parsed.message,
    data: (parsed.data ?? null) as Json,
    requestId: typeof parsed.requestId === "string" ? parsed.requestId : "",
  };
};

export type ErrorContext = {
  /** The tool's price in credits (0 for free tools). */
  costCredits: number;
  /** X-Credits-Remaining of the answer, when the pipeline knew it. */
  creditsRemaining: string | undefined;
  retryAfterS: string | undefined;
};

/** The contract's message, then what to do about it. */
export const nextStep = (status: number, message: string, context: ErrorContext): string => {
  switch (status) {
    case 400:
      return `${message}. Check the arguments against this tool's input schema; nothing was charged.`;
    case 401:
      return `${message}: the key is unknown, revoked or expired. Create or roll a key on the Keys page; nothing was charged.`;
    case 402: {
      const left = context.creditsRemaining === undefined ? "" : `: ${context.creditsRemaining} credits left, this tool costs ${context.costCredits}`;
      return `${message}${left}; top up on the Keys page. Nothing was charged.`;
    }
    case 403:
      return `${message}. This key may not make this call; use another key or change the key on the Keys page. Nothing was charged.`;
    case 404:
      return `${message}: there is no record for this input. Check the input; nothing was charged.`;
    case 429:
      // Anything but the per-second limit (a batch quota) says itself what is over and what to do.
      if (message !== messages.qps) return `${message} Nothing was charged.`;
      return `${message}: the key's per-second limit was reached. Retry after ${context.retryAfterS ?? "1"} s; nothing was charged.`;
    default:
      return `${message}. Retry later; nothing was charged.`;
  }
};

export const errorResult = (envelope: Envelope, context: ErrorContext): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: `${nextStep(envelope.code, envelope.message, context)} (request ${envelope.requestId})` }],
});

const describeCuts = (cuts: readonly Cut[]): string =>
  cuts.map((cut) => `${cut.path} cut to ${cut.shown} of ${cut.total} entries`).join("; ");

/**
 * The JSON text `data` was parsed from, and where the answer may offer it: when nothing was cut,
 * that text is the answer's structuredContent as it stands, and need not be serialised again.
 */
export type DataSource = { json: string; offer?: (json: string) => void; bytesAtMost: number };

/** A record's JSON text as a DataSource, its size bound (utf8BytesAtMost) taken once for both readers. */
export const dataSource = (json: string, offer?: (json: string) => void): DataSource => ({ json, offer, bytesAtMost: utf8BytesAtMost(json) });

/**
 * A record's data, read from its JSON text for an answer (`source` is then passed to
 * successResult). When the answer will carry that text as it stands (`offer`) and nothing in it
 * can need cutting, its outline is enough (lib/mcp/outline.ts): the entries are not built.
 * Otherwise the record is parsed, to be cut to size and serialised.
 */
export const readRecord = (source: DataSource): Json => {
  const skim = source.offer !== undefined && source.bytesAtMost <= MCP_MAX_BYTES ? outlineOf(source.json) : null;
  return skim !== null && skim.longestList <= MCP_MAX_ITEMS ? skim.outline : (JSON.parse(source.json) as Json);
};

/** A 200 answer: its data (cut to size) as structuredContent, and a line or two of text. */
export const successResult = (data: Json, summary: string, more: string | null, source?: DataSource): CallToolResult => {
  const cuts = isRecord(data) ? fitForAgent(data, undefined, source?.bytesAtMost) : [];
  if (source?.offer !== undefined && cuts.length === 0 && isRecord(data)) source.offer(source.json);
  const lines = [summary];
  if (cuts.length > 0) lines.push(`The answer was cut to fit (${describeCuts(cuts)}); the full page is served by the /v1 API.`);
  if (more !== null) lines.push(more);
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    ...(isRecord(data) ? { structuredContent: data } : {}),
  };
};
