import { invalid } from "@/lib/records/input-errors";
import { param, parseFollowers } from "@/lib/records/params";
import { followersDataSchema, type FollowersData } from "@/lib/records/records";
import { entityIdFromNodeId } from "@/lib/records/node-id";
import type { JsonObject } from "@/lib/records/json";
import { followersOf, followersPagingOf, tableOf } from "../batch-shapes";
import { defineOperation } from "../define";
import { nextPageBy, type OperationPaging } from "../paging";
import { FOLLOWERS_PAGE_SIZE, followersOperation } from "./descriptor";
import { followersSource, type FollowersQuery } from "./source";

export { FOLLOWERS_PAGE_SIZE, followersOperation };

const followerColumns = ["username", "fullName", "entityId", "isPrivateProfile", "id"] as const;

// docs/decisions.md "Parameters": a client continues with node_id + cursor=end_cursor.
const paging: OperationPaging = {
  entries: "followers",
  hasMore: "page_info.has_next_page",
  next: [
    { param: "node_id", fromData: "node_id" },
    { param: "cursor", fromData: "page_info.end_cursor" },
  ],
};

// Node ids are base64("User:<entityId>") (lib/records/node-id.ts), written out as the
// document shows them.
const example: JsonObject = {
  followers: [
    {
      node: {
        username: "maple.and.pine",
        status: "ok",
        fullName: "Maple & Pine",
        imageMediumUrl: "https://images.demo.test/users/2000000101/medium.jpg",
        imageXlargeUrl: "https://images.demo.test/users/2000000101/xlarge.jpg",
        entityId: "2000000101",
        isPrivateProfile: false,
        verifiedIdentity: { verified: null },
        id: "VXNlcjoyMDAwMDAwMTAx",
        __typename: "User",
      },
      cursor: null,
    },
    {
      node: {
        username: "quiet.corner",
        status: "ok",
        fullName: "Quiet Corner",
        imageMediumUrl: null,
        imageXlargeUrl: null,
        entityId: "2000000102",
        isPrivateProfile: true,
        verifiedIdentity: null,
        id: "VXNlcjoyMDAwMDAwMTAy",
        __typename: "User",
      },
      cursor: null,
    },
  ],
  node_id: "VXNlcjoyMDAwMDAwMDAy",
  page_info: { has_next_page: true, end_cursor: "MjU.c2lnbmVk" },
};

export const followers = defineOperation<(typeof followersOperation)["id"], FollowersData, FollowersQuery>({
  ...followersOperation,
  summary: "Get followers detail",
  rule:
    "userid → first page; else node_id + cursor → the page after that cursor " +
    "(node_id is data.node_id, cursor is data.page_info.end_cursor of the previous page); " +
    `neither → 400 Missing required parameter: userid. Page size ${FOLLOWERS_PAGE_SIZE}.`,
  notFoundMessage: "User not found",
  params: [
    param("userid", { required: false, example: "2000000002", note: "Required unless node_id is given." }),
    param("node_id", { required: false, example: "VXNlcjoyMDAwMDAwMDAy", alternative: true }),
    param("cursor", { required: false, example: "MjU.c2lnbmVk", alternative: true }),
  ],
  missingWhenNoneGiven: "userid",
  record: followersDataSchema,
  example: { summary: "a first page of followers (shortened to two entries)", data: example },
  tagDescription: "Follower lists",
  paging,
  batch: {
    invalidInput: "not a user id (digits only)",
    ...tableOf(followersOf, "followers[].node", followerColumns),
    summary: (data) => {
      const page = followersPagingOf(data);
      return page ? `${page.followers.length} followers${page.page_info.has_next_page ? ", more pages" : ""}` : "";
    },
    nextPage: nextPageBy(paging),
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
  source: followersSource,
});
