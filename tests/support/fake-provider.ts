import http from "node:http";
import type { AddressInfo } from "node:net";
import type { EventRecord, FollowerEntry, Publication } from "@/lib/records/records";

/**
 * A local upstream provider for tests: a real HTTP server speaking the contract of docs/api.md (envelope,
 * codes, messages, Bearer keys with credits charged only for 200s). It records every call with
 * the Authorization it saw, and can be told to answer differently (fail, hang, slow, 429, 402)
 * for the next calls or for all of them. Its follower pages use its own node ids and cursors
 * (and a page size of 20), so a connector must map them rather than pass ours through.
 *
 * By default it finds a subject only under the spelling it was given. With `caseInsensitive` it
 * reads subjects as a lenient real provider may: a URN in any case, and an id with leading zeros
 * (an event, a user, a URN's numeric id) as the number it is.
 */
export type Behaviour =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
  | { delayMs: number };

export type ProviderCall = { path: string; query: Record<string, string>; authorization: string | null; at: number };

export const PROVIDER_FOLLOWERS_PAGE = 20;
export const PROVIDER_PUBLICATIONS_PAGE = 10;

const COSTS: Record<string, number> = {
  "/v1/eventsite/event_details_id": 4,
  "/v1/pinsite/followers": 2,
  "/v1/jobsite/get_user_publications": 1,
};

export const providerNodeId = (userId: string) => `prov-node-${userId}`;
const providerCursor = (userId: string, offset: number) => Buffer.from(`provider:${userId}:${offset}`).toString("base64url");
const readProviderCursor = (cursor: string): { userId: string; offset: number } | null => {
  const match = /^provider:(\d+):(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match?.[1] && match[2] ? { userId: match[1], offset: Number(match[2]) } : null;
};

export type FakeProvider = {
  url: string;
  calls: ProviderCall[];
  events: Map<string, EventRecord>;
  followers: Map<string, FollowerEntry[]>;
  publications: Map<string, Publication[]>;
  /** Valid keys and their remaining provider credits. */
  keys: Map<string, number>;
  /** Answers for the next calls, in order (then back to normal). */
  queue(...behaviours: Behaviour[]): void;
  /** An answer for every call until set back to null. */
  always(behaviour: Behaviour | null): void;
  callsTo(path: string): ProviderCall[];
  reset(): void;
  close(): Promise<void>;
};

const envelope = (code: number, message: string, data: unknown) => ({ code, message, data, requestId: crypto.randomUUID() });

export type FakeProviderOptions = { caseInsensitive?: boolean };

/** How a lenient provider reads a subject: lower case, digits without leading zeros. */
const leniently = (subject: string) => subject.toLowerCase().replace(/(^|:)0+(?=\d)/g, "$1");

/** The entry of `map` the subject names: its own spelling, or any that reads the same when lenient. */
const find = <Value>(map: Map<string, Value>, subject: string, lenient: boolean): Value | undefined => {
  const exact = map.get(subject);
  if (exact !== undefined || !lenient) return exact;
  const wanted = leniently(subject);
  for (const [key, value] of map) if (leniently(key) === wanted) return value;
  return undefined;
};

export const startFakeProvider = async (options: FakeProviderOptions = {}): Promise<FakeProvider> => {
  const lenient = options.caseInsensitive ?? false;
  const calls: ProviderCall[] = [];
  const events = new Map<string, EventRecord>();
  const followers = new Map<string, FollowerEntry[]>();
  const publications = new Map<string, Publication[]>();
  const keys = new Map<string, number>();
  let queued: Behaviour[] = [];
  let standing: Behaviour | null = null;
  const sockets = new Set<import("node:net").Socket>();

  const answer = (response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", ...headers });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  const lookup = (path: string, query: Record<string, string>): { status: number; body: unknown } => {
    switch (path) {
      case "/v1/eventsite/event_details_id": {
        const eventId = query.event_id;
        if (!eventId) return { status: 400, body: envelope(400, "Missing required parameter: event_id", null) };
        const event = find(events, eventId, lenient);
        return event ? { status: 200, body: envelope(0, "success", { event }) } : { status: 404, body: envelope(404, "Event not found", null) };
      }
      case "/v1/pinsite/followers": {
        let userId = query.userid;
        let offset = 0;
        if (!userId) {
          const nodeId = query.node_id;
          if (!nodeId) return { status: 400, body: envelope(400, "Missing required parameter: userid", null) };
          userId = nodeId.replace(/^prov-node-/, "");
          if (query.cursor) {
            const cursor = readProviderCursor(query.cursor);
            if (!cursor || cursor.userId !== userId) return { status: 400, body: envelope(400, "Invalid parameter: cursor", null) };
            offset = cursor.offset;
          }
        }
        const list = find(followers, userId, lenient);
        if (!list) return { status: 404, body: envelope(404, "User not found", null) };
        const page = list.slice(offset, offset + PROVIDER_FOLLOWERS_PAGE);
        const hasNext = offset + PROVIDER_FOLLOWERS_PAGE < list.length;
        return {
          status: 200,
          body: envelope(0, "success", {
            followers: page,
            node_id: providerNodeId(userId),
            page_info: { has_next_page: hasNext, end_cursor: hasNext ? providerCursor(userId, offset + PROVIDER_FOLLOWERS_PAGE) : null },
          }),
        };
      }
      case "/v1/jobsite/get_user_publications": {
        const urn = query.urn;
        if (!urn) return { status: 400, body: envelope(400, "Missing required parameter: urn", null) };
        const list = find(publications, urn, lenient);
        if (!list) return { status: 404, body: envelope(404, "Profile not found", null) };
        const page = Number(query.page ?? "1");
        const start = (page - 1) * PROVIDER_PUBLICATIONS_PAGE;
        return {
          status: 200,
          body: envelope(0, "success", {
            page,
            total: list.length,
            has_more: start + PROVIDER_PUBLICATIONS_PAGE < list.length,
            data: list.slice(start, start + PROVIDER_PUBLICATIONS_PAGE),
          }),
        };
      }
      default:
        return { status: 404, body: "<html>not here</html>" };
    }
  };

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://provider.test");
    const query = Object.fromEntries(url.searchParams);
    calls.push({ path: url.pathname, query, authorization: request.headers.authorization ?? null, at: Date.now() });
    const behaviour = queued.shift() ?? standing;

    const normal = () => {
      const authorization = request.headers.authorization ?? "";
      const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
      if (!token) return answer(response, 401, envelope(401, "apiKey is null", null));
      const credits = keys.get(token);
      if (credits === undefined) return answer(response, 401, envelope(401, "apiKey is invalid", null));
      const cost = COSTS[url.pathname] ?? 0;
      if (credits < cost) return answer(response, 402, envelope(402, "apiKey quota is not enough", null));
      const result = lookup(url.pathname, query);
      if (result.status === 200) keys.set(token, credits - cost);
      answer(response, result.status, result.body);
    };

    if (!behaviour) return normal();
    if ("hang" in behaviour) return;
    if ("delayMs" in behaviour) {
      setTimeout(normal, behaviour.delayMs);
      return;
    }
    answer(response, behaviour.status, behaviour.body ?? envelope(behaviour.status, "Internal server error", null), behaviour.headers);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    calls,
    events,
    followers,
    publications,
    keys,
    queue: (...behaviours) => {
      queued.push(...behaviours);
    },
    always: (behaviour) => {
      standing = behaviour;
    },
    callsTo: (path) => calls.filter((call) => call.path === path),
    reset: () => {
      calls.length = 0;
      queued = [];
      standing = null;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
