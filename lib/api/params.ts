import { z } from "zod";
import type { OperationParam } from "@/lib/operations/define";
import { readParam as readQueryParam } from "@/lib/operations/read-params";
import { ApiError, invalid, missing } from "./errors";

/**
 * Query parameters of the four operations (decisions.md "Parameters"). Each parameter is a zod
 * schema on its string value — the same schemas document it in OpenAPI. A parameter that is
 * absent or empty is missing; one given twice, too long or not matching is invalid.
 */
export const MAX_PARAM_LENGTH = 2048;

export const paramSchemas = {
  url: z
    .string()
    .max(MAX_PARAM_LENGTH)
    .describe("full URL of the event page: https://<event-site-host>/events/<event_id>/"),
  event_id: z.string().regex(/^\d{1,20}$/).describe("event id, digits only (1-20)"),
  userid: z.string().regex(/^\d{1,20}$/).describe("numeric user id; returns the first page"),
  node_id: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9+/=_-]+$/)
    .describe("the user's opaque node id (data.node_id of an earlier page); used when userid is absent"),
  cursor: z
    .string()
    .max(500)
    .regex(/^[A-Za-z0-9_.-]+$/)
    .describe("data.page_info.end_cursor of the previous page; used with node_id"),
  urn: z
    .string()
    .max(200)
    .regex(/^urn:li:[A-Za-z_]+:[A-Za-z0-9_-]{1,100}$/)
    .describe("profile URN, e.g. urn:li:member:3000000001"),
  page: z
    .string()
    .regex(/^\d{1,6}$/)
    .refine((value) => Number(value) >= 1)
    .describe("page number, integer ≥ 1; default 1"),
} as const;

export type ParamName = keyof typeof paramSchemas;

const readParam = (query: URLSearchParams, name: ParamName, required: boolean): string | undefined =>
  readQueryParam(query, { name, schema: paramSchemas[name], required });

/** A parameter of the four operations as their modules declare it (lib/operations/define.ts). */
export const param = (
  name: ParamName,
  spec: Omit<OperationParam, "name" | "schema">,
): OperationParam => ({ name, schema: paramSchemas[name], ...spec });

export type EventSiteConfig = { hosts: readonly string[] };

/** The path of an event page; its one group is the event id. */
export const EVENT_PAGE_PATH = /^\/events\/(\d{1,20})\/?$/;

/** A host is accepted with or without "www." / "m.", in any case; "*" accepts every host. */
export const isEventSiteHost = (host: string, hosts: readonly string[]): boolean =>
  hosts.includes("*") || hosts.includes(host.toLowerCase().replace(/^(www\.|m\.)/, ""));

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

const storable = (value: string, maxLength: number): string => {
  // Cut on a code point boundary so an emoji is never split in half.
  const cut = Array.from(value).slice(0, maxLength).join("");
  return cut.replace(UNSTORABLE, "\uFFFD");
};

/** A short, log-safe summary of what was asked, kept in the usage record. */
export const summariseQuery = (query: URLSearchParams, names: readonly string[]): string =>
  storable(names.flatMap((name) => query.getAll(name).map((value) => `${name}=${storable(value, 120)}`)).join("&"), 300);

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
