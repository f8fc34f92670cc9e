import type { OperationDescriptor } from "../descriptor";

/** Followers per page: the store and the console page by it. */
export const FOLLOWERS_PAGE_SIZE = 25;

/** Followers of a pin-board user, as the browser knows the operation (the rest: ./index.ts). */
export const followersOperation = {
  id: "followers",
  path: "/v1/pinsite/followers",
  costCredits: 2,
  pageSize: FOLLOWERS_PAGE_SIZE,
  primaryParam: "userid",
  label: { short: "Followers", site: "Pin-board site", lookedUpBy: "User id, then node id + cursor pages" },
  subjectKind: "pin_user",
  chartColor: "oklch(76% 0.15 75)",
} as const satisfies OperationDescriptor<"followers">;
