import { param, parsePublications, type PublicationsParams } from "@/lib/api/params";
import { publicationsDataSchema, type PublicationsData } from "@/lib/api/records";
import type { JsonObject } from "@/lib/openapi/types";
import { defineOperation } from "./define";

/** Publications per page: the store and the console page by it. */
export const PUBLICATIONS_PAGE_SIZE = 10;

const example: JsonObject = {
  page: 1,
  total: 2,
  has_more: false,
  data: [
    {
      title: "Designing Credit-Based APIs",
      publication: "Demo Engineering Journal",
      description: "How metered APIs reserve and settle credits.\nWith worked examples.",
      date: "Mar 3, 2024",
      publication_url: "https://publications.demo.test/articles/credit-based-apis",
    },
    {
      title: "Cursor Pagination in Practice",
      publication: "Demo Engineering Journal",
      description: "Opaque cursors, page sizes and tamper checks.",
      date: "Nov 18, 2023",
      publication_url: "https://publications.demo.test/articles/cursor-pagination",
    },
  ],
};

export const publications = defineOperation<"get_user_publications", PublicationsData, PublicationsParams>({
  id: "get_user_publications",
  path: "/v1/jobsite/get_user_publications",
  costCredits: 1,
  summary: "Get user publications",
  rule: `Page size ${PUBLICATIONS_PAGE_SIZE}. A page past the end answers 200 with data: [], has_more: false and the real total.`,
  notFoundMessage: "Profile not found",
  pageSize: PUBLICATIONS_PAGE_SIZE,
  params: [
    param("urn", { required: true, example: "urn:li:member:3000000001" }),
    // The value travels as a string of digits (checked /^\d{1,6}$/ and ≥ 1, a refinement JSON
    // Schema cannot express from zod), but clients see it as the integer it is.
    param("page", { required: false, example: "1", openApiSchema: { type: "integer", minimum: 1, maximum: 999999, default: 1 } }),
  ],
  primaryParam: "urn",
  record: publicationsDataSchema,
  example: { summary: "the first page of publications", data: example },
  tagDescription: "Publication lists",
  label: { short: "Publications", site: "Professional network", lookedUpBy: `Profile URN, ${PUBLICATIONS_PAGE_SIZE} per page` },
  chartColor: "oklch(66% 0.2 345)",
  upstream: { path: "v1/jobsite/get_user_publications" },
  parse: (query) => parsePublications(query),
  lookup: (params, connector, context) => connector.publications(params.urn, params.page, context),
});
