import type { OperationDescriptor } from "../descriptor";

/** Publications per page: the store and the console page by it. */
export const PUBLICATIONS_PAGE_SIZE = 10;

/** A profile's publications, as the browser knows the operation (the rest: ./index.ts). */
export const publicationsOperation = {
  id: "get_user_publications",
  path: "/v1/jobsite/get_user_publications",
  costCredits: 1,
  pageSize: PUBLICATIONS_PAGE_SIZE,
  primaryParam: "urn",
  label: { short: "Publications", site: "Professional network", lookedUpBy: `Profile URN, ${PUBLICATIONS_PAGE_SIZE} per page` },
  subjectKind: "profile",
  chartColor: "oklch(66% 0.2 345)",
  clientName: "publications",
} as const satisfies OperationDescriptor<"get_user_publications">;
