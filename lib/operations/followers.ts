import { invalid } from "@/lib/api/errors";
import { parseFollowers } from "@/lib/api/params";
import { entityIdFromNodeId } from "@/lib/connectors/node-id";
import type { FollowersQuery } from "@/lib/connectors/types";
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
