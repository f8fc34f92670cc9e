import { z } from "zod";
import type { SchemaObject } from "./json";
import { EVENT_PAGE_PATH, isEventSiteHost, paramRules, type ParamName, type ParamRule } from "@/lib/records/param-rules";
import { readParam as readQueryParam } from "@/lib/records/read-params";
import { invalid, missing } from "./input-errors";

/**
 * Query parameters of the four operations (docs/decisions.md "Parameters"). Each parameter is a zod
 * schema on its string value, built from its rule in lib/records/param-rules.ts (plain data,
 * which the console's inputs check in the browser without zod) — the same schemas document it in
 * OpenAPI. A parameter that is absent or empty is missing; one given twice, too long or not
 * matching is invalid.
 */
export { EVENT_PAGE_PATH, isEventSiteHost, MAX_PARAM_LENGTH, type ParamName } from "@/lib/records/param-rules";

const schemaOf = (rule: ParamRule, description: string) => {
  let schema = z.string();
  if (rule.maxLength !== undefined) schema = schema.max(rule.maxLength);
  if (rule.pattern !== undefined) schema = schema.regex(rule.pattern);
  const { minimum } = rule;
  if (minimum !== undefined) schema = schema.refine((value) => Number(value) >= minimum);
  return schema.describe(description);
};

const descriptions: Record<ParamName, string> = {
  url: "full URL of the event page: https://<event-site-host>/events/<event_id>/",
  event_id: "event id, digits only (1-20)",
  userid: "numeric user id; returns the first page",
  node_id: "the user's opaque node id (data.node_id of an earlier page); used when userid is absent",
  cursor: "data.page_info.end_cursor of the previous page; used with node_id",
  urn: "profile URN, e.g. urn:li:member:3000000001",
  page: "page number, integer ≥ 1; default 1",
};

export const paramSchemas = Object.fromEntries(
  (Object.keys(paramRules) as ParamName[]).map((name) => [name, schemaOf(paramRules[name], descriptions[name])]),
) as Record<ParamName, z.ZodString>;

const readParam = (query: URLSearchParams, name: ParamName, required: boolean): string | undefined =>
  readQueryParam(query, { name, schema: paramSchemas[name], required });

/** A parameter of the four operations as their modules declare it (lib/operations/define.ts). */
export const param = (
  name: ParamName,
  spec: Omit<OperationParam, "name" | "schema">,
): OperationParam => ({ name, schema: paramSchemas[name], ...spec });

/** One query parameter: its zod schema (with its description) is the validation and the documentation. */
export type OperationParam = {
  name: string;
  /** Validates the string value; its .describe() is the OpenAPI description. */
  schema: z.ZodType<string>;
  required: boolean;
  /** Query-string value used in OpenAPI, try-it forms and snippets: one that finds a demo record. */
  example: string;
  /** Added to the description where the rule spans parameters. */
  note?: string;
  /** The JSON Schema OpenAPI shows when the value is not the plain string the zod schema reads (a page number). */
  openApiSchema?: SchemaObject;
  /** Empty at first in try-it forms: it selects another mode (node_id + cursor instead of userid). */
  alternative?: boolean;
};

export type EventSiteConfig = { hosts: readonly string[] };

/** Event id from an event page URL on an accepted host, or the contract's 400. */
export const eventIdFromUrl = (raw: string, config: EventSiteConfig): string => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url");
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "") throw invalid("url");
  if (!isEventSiteHost(url.host, config.hosts)) throw invalid("url");
  const match = EVENT_PAGE_PATH.exec(url.pathname);
  if (!match?.[1]) throw invalid("url");
  return match[1];
};

export type EventByUrlParams = { eventId: string; url: string };
export type EventByIdParams = { eventId: string };
export type FollowersParams =
  | { kind: "first"; userId: string }
  | { kind: "next"; nodeId: string; cursor: string | undefined };
export type PublicationsParams = { urn: string; page: number };

export const parseEventByUrl = (query: URLSearchParams, config: EventSiteConfig): EventByUrlParams => {
  const url = readParam(query, "url", true) ?? "";
  return { eventId: eventIdFromUrl(url, config), url };
};

export const parseEventById = (query: URLSearchParams): EventByIdParams => ({
  eventId: readParam(query, "event_id", true) ?? "",
});

export const parseFollowers = (query: URLSearchParams): FollowersParams => {
  const userId = readParam(query, "userid", false);
  if (userId !== undefined) return { kind: "first", userId };
  const nodeId = readParam(query, "node_id", false);
  if (nodeId === undefined) throw missing("userid");
  return { kind: "next", nodeId, cursor: readParam(query, "cursor", false) };
};

export const parsePublications = (query: URLSearchParams): PublicationsParams => {
  const urn = readParam(query, "urn", true) ?? "";
  const page = readParam(query, "page", false);
  return { urn, page: page === undefined ? 1 : Number(page) };
};

/** Control characters and lone surrogate halves cannot be stored as text (PostgreSQL refuses \u0000). */
const UNSTORABLE = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Printable ASCII only: nothing to cut on a code point boundary, nothing unstorable (the usual query). */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

const storable = (value: string, maxLength: number): string => {
  if (value.length <= maxLength && PLAIN_ASCII.test(value)) return value;
  // Cut on a code point boundary so an emoji is never split in half.
  const cut = Array.from(value).slice(0, maxLength).join("");
  return cut.replace(UNSTORABLE, "\uFFFD");
};

/** A short, log-safe summary of what was asked, kept in the usage record. */
export const summariseQuery = (query: URLSearchParams, names: readonly string[]): string =>
  storable(names.flatMap((name) => query.getAll(name).map((value) => `${name}=${storable(value, 120)}`)).join("&"), 300);

