import type { CsvColumn } from "@/lib/export/csv";
import type { FollowerEntry } from "@/lib/query/followers";

type FollowerNode = FollowerEntry["node"];

/** CSV columns of a follower export, in this order (the header row). */
export const followerCsvColumns: readonly CsvColumn<FollowerNode>[] = [
  { header: "entityId", value: (node) => node.entityId },
  { header: "username", value: (node) => node.username },
  { header: "fullName", value: (node) => node.fullName },
  { header: "isPrivateProfile", value: (node) => node.isPrivateProfile },
  // null (private profile, or not stated) stays an empty cell: "unknown" is not "false".
  { header: "verified", value: (node) => node.verifiedIdentity?.verified ?? null },
  { header: "imageMediumUrl", value: (node) => node.imageMediumUrl },
];
