/** The four lookup operations: where they live, what they cost, what "not found" says. */
export const operations = {
  event_details: {
    path: "/v1/eventsite/event_details",
    costCredits: 4,
    notFoundMessage: "Event not found",
    summary: "Get event details by url",
  },
  event_details_id: {
    path: "/v1/eventsite/event_details_id",
    costCredits: 4,
    notFoundMessage: "Event not found",
    summary: "Get event details by id",
  },
  followers: {
    path: "/v1/pinsite/followers",
    costCredits: 2,
    notFoundMessage: "User not found",
    summary: "Get followers detail",
  },
  get_user_publications: {
    path: "/v1/jobsite/get_user_publications",
    costCredits: 1,
    notFoundMessage: "Profile not found",
    summary: "Get user publications",
  },
} as const;

export type OperationName = keyof typeof operations;
export type Operation = (typeof operations)[OperationName];

export const operationNames = Object.keys(operations) as OperationName[];
