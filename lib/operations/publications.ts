import { parsePublications, type PublicationsParams } from "@/lib/api/params";
import { publicationsOf } from "./batch-shapes";
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
  batch: {
    invalidInput: "not a profile URN (urn:li:…)",
    columns: ["title", "publication", "date", "publication_url", "description"],
    rows: (data) =>
      (publicationsOf(data)?.data ?? []).map((entry) => ({
        title: entry.title,
        publication: entry.publication,
        date: entry.date,
        publication_url: entry.publication_url,
        description: entry.description,
      })),
    summary: (data) => {
      const page = publicationsOf(data);
      return page ? `page ${page.page}: ${page.data.length} of ${page.total} publications` : "";
    },
    nextPage: (data, query) => {
      const page = publicationsOf(data);
      const urn = query.get("urn");
      return page?.has_more && urn !== null ? new URLSearchParams({ urn, page: String(page.page + 1) }) : null;
    },
    exportRecord: (query, pages) => {
      const urn = query.get("urn");
      if (urn === null || pages.length === 0) return null;
      return { urn, publications: pages.flatMap((page) => publicationsOf(page)?.data ?? []) };
    },
  },
  parse: (query) => parsePublications(query),
  lookup: (params, connector, context) => connector.publications(params.urn, params.page, context),
});
