import { parsePublications, type PublicationsParams } from "@/lib/api/params";
import { defineOperation } from "./define";

export const publications = defineOperation<PublicationsParams>({
  id: "get_user_publications",
  path: "/v1/jobsite/get_user_publications",
  costCredits: 1,
  summary: "Get user publications",
  notFoundMessage: "Profile not found",
  paramNames: ["urn", "page"],
  primaryParam: "urn",
  label: { short: "Publications", site: "Professional network", lookedUpBy: "Profile URN, 10 per page" },
  parse: (query) => parsePublications(query),
  lookup: (params, connector, context) => connector.publications(params.urn, params.page, context),
});
