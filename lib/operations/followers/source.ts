import { z } from "zod";
import type { ProviderContinuation } from "@/lib/connectors/cache";
import { pagedListSource } from "@/lib/connectors/paged-list";
import { kindOf } from "@/lib/connectors/source";
import { followerJson, upsertFollowerList } from "@/lib/connectors/store-records";
import { UpstreamError } from "@/lib/connectors/upstream-client";
import { entityIdFromNodeId, nodeIdFor } from "@/lib/records/node-id";
import { followerEntrySchema, type FollowerEntry, type FollowersData } from "@/lib/records/records";
import { FOLLOWERS_PAGE_SIZE } from "./descriptor";

/** A page of a user's followers: the user and the list position of the page's first entry. */
export type FollowersQuery = { userId: string; offset: number };

/** The `data` of a followers answer, around the entries' canonical text. */
export const followersDataJson = (entriesJson: readonly string[], nodeId: string, hasNext: boolean, endCursor: string | null): string =>
  `{"followers":[${entriesJson.join(",")}],"node_id":${JSON.stringify(nodeId)},` +
  `"page_info":{"has_next_page":${hasNext},"end_cursor":${endCursor === null ? "null" : JSON.stringify(endCursor)}}}`;

// The provider may follow the bare contract (followers only) or ours (node_id and page_info too).
const providerFollowersSchema = z.object({
  followers: z.array(followerEntrySchema),
  node_id: z.string().optional(),
  page_info: z.object({ has_next_page: z.boolean(), end_cursor: z.string().nullable() }).optional(),
});

/**
 * Where follower pages come from: a pin-board user's row and its followers, or the provider. Our
 * pages go by position and continue by our signed cursor (user, offset); the provider's own node
 * id and cursor for the next page are kept when a page is fetched, and never reach our clients.
 * `data.node_id` is always nodeIdFor(user): pin_users.node_id is written so by its one writer
 * (store-records.ts).
 */
export const followersSource = pagedListSource<FollowersQuery, FollowerEntry, z.infer<typeof providerFollowersSchema>, FollowersData>({
  kind: kindOf("pin_user"),
  pageSize: FOLLOWERS_PAGE_SIZE,
  owner: (query) => query.userId,
  page: (query) => ({ number: query.offset, start: query.offset }),
  placement: "at-position",
  showsTotal: false,
  dataJson: (query, page, { cursors }) =>
    followersDataJson(
      page.entries,
      nodeIdFor(query.userId),
      page.hasMore,
      page.hasMore ? cursors.encode({ userId: query.userId, offset: page.end }) : null,
    ),
  entryJson: followerJson,
  parseEntry: (value) => followerEntrySchema.parse(value),
  writeList: (db, userid, followers, source) => upsertFollowerList(db, { userid, followers }, source),
  upstream: {
    path: "v1/pinsite/followers",
    query: async (query, saved): Promise<{ query: Record<string, string>; continuation: ProviderContinuation | null }> => {
      if (query.offset === 0) return { query: { userid: query.userId }, continuation: null };
      const continuation = await saved.at(query.userId, query.offset);
      if (!continuation) throw new UpstreamError(`no provider cursor for user ${query.userId} at offset ${query.offset}`);
      return { query: { node_id: continuation.providerNodeId, cursor: continuation.providerCursor }, continuation };
    },
    schema: providerFollowersSchema,
    read: (data, query, continuation) => {
      // Our entries keep the contract's shape (cursor: null); pages continue by our end_cursor.
      const entries: FollowerEntry[] = data.followers.map((entry) => ({ node: entry.node, cursor: null }));
      const providerCursor = data.page_info?.end_cursor ?? data.followers.at(-1)?.cursor ?? null;
      const hasMore = (data.page_info?.has_next_page ?? false) && providerCursor !== null && entries.length > 0;
      const providerNodeId = data.node_id ?? continuation?.providerNodeId ?? nodeIdFor(query.userId);
      return { entries, hasMore, total: null, next: hasMore && providerCursor !== null ? { providerNodeId, providerCursor } : null };
    },
  },
  answerSubjects: {
    own: (data) => entityIdFromNodeId(data.node_id),
    entries: (data, keep) => {
      const followers = data.followers.filter((entry) => keep(entry.node.entityId));
      return followers.length === data.followers.length ? data : { ...data, followers };
    },
  },
});
