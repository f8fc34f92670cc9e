import { invalid } from "@/lib/api/errors";
import { parseFollowers } from "@/lib/api/params";
import { entityIdFromNodeId } from "@/lib/connectors/node-id";
import type { FollowersQuery } from "@/lib/connectors/types";
import { followersOf } from "./batch-shapes";
import { defineOperation } from "./define";

export const followers = defineOperation<FollowersQuery>({
  id: "followers",
  path: "/v1/pinsite/followers",
  costCredits: 2,
  summary: "Get followers detail",
  notFoundMessage: "User not found",
  paramNames: ["userid", "node_id", "cursor"],
  primaryParam: "userid",
  label: { short: "Followers", site: "Pin-board site", lookedUpBy: "User id, then node id + cursor pages" },
  batch: {
    invalidInput: "not a user id (digits only)",
    columns: ["username", "fullName", "entityId", "isPrivateProfile", "id"],
    rows: (data) =>
      (followersOf(data)?.followers ?? []).map(({ node }) => ({
        username: node.username,
        fullName: node.fullName,
        entityId: node.entityId,
        isPrivateProfile: node.isPrivateProfile,
        id: node.id,
      })),
    summary: (data) => {
      const page = followersOf(data);
      return page ? `${page.followers.length} followers${page.page_info.has_next_page ? ", more pages" : ""}` : "";
    },
    // decisions.md: a client continues with node_id + cursor=end_cursor.
    nextPage: (data) => {
      const page = followersOf(data);
      const cursor = page?.page_info.has_next_page ? page.page_info.end_cursor : null;
      return page && cursor ? new URLSearchParams({ node_id: page.node_id, cursor }) : null;
    },
    exportRecord: (query, pages) => {
      const first = followersOf(pages[0]);
      const userid = query.get("userid");
      if (!first || userid === null) return null;
      return { userid, node_id: first.node_id, followers: pages.flatMap((page) => followersOf(page)?.followers ?? []) };
    },
  },
  parse: (query, context) => {
    const params = parseFollowers(query);
    if (params.kind === "first") return { userId: params.userId, offset: 0 };
    const userId = entityIdFromNodeId(params.nodeId);
    if (userId === null) throw invalid("node_id");
    if (params.cursor === undefined) return { userId, offset: 0 };
    const cursor = context.cursors.decode(params.cursor);
    if (cursor === null || cursor.userId !== userId) throw invalid("cursor");
    return { userId, offset: cursor.offset };
  },
  lookup: (params, connector, context) => connector.followers(params, context),
});
