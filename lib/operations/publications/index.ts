import { param, parsePublications, type PublicationsParams } from "@/lib/records/params";
import { publicationsDataSchema, type PublicationsData } from "@/lib/records/records";
import type { JsonObject } from "@/lib/records/json";
import { publicationsOf, publicationsPagingOf, tableOf } from "../batch-shapes";
import { defineOperation } from "../define";
import { nextPageBy, type OperationPaging } from "../paging";
import { PUBLICATIONS_PAGE_SIZE, publicationsOperation } from "./descriptor";
import { publicationsSource } from "./source";

export { PUBLICATIONS_PAGE_SIZE, publicationsOperation };

const publicationColumns = ["title", "publication", "date", "publication_url", "description"] as const;

/** The next page number while has_more (a page past the end is an empty 200, never asked for). */
const paging: OperationPaging = {
  entries: "data",
  hasMore: "has_more",
  next: [
    { param: "urn", fromQuery: true },
    { param: "page", fromData: "page", add: 1 },
  ],
};

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

export const publications = defineOperation<(typeof publicationsOperation)["id"], PublicationsData, PublicationsParams>({
  ...publicationsOperation,
  summary: "Get user publications",
  rule: `Page size ${PUBLICATIONS_PAGE_SIZE}. A page past the end answers 200 with data: [], has_more: false and the real total.`,
  notFoundMessage: "Profile not found",
  params: [
    param("urn", { required: true, example: "urn:li:member:3000000001" }),
    // The value travels as a string of digits (checked /^\d{1,6}$/ and ≥ 1, a refinement JSON
    // Schema cannot express from zod), but clients see it as the integer it is.
    param("page", { required: false, example: "1", openApiSchema: { type: "integer", minimum: 1, maximum: 999999, default: 1 } }),
  ],
  batch: {
    invalidInput: "not a profile URN (urn:li:…)",
    ...tableOf(publicationsOf, "data[]", publicationColumns),
    summary: (data) => {
      const page = publicationsPagingOf(data);
      return page ? `page ${page.page}: ${page.data.length} of ${page.total} publications` : "";
    },
    nextPage: nextPageBy(paging),
    exportRecord: (query, pages) => {
      const urn = query.get("urn");
      if (urn === null || pages.length === 0) return null;
      return { urn, publications: pages.flatMap((page) => publicationsOf(page)?.data ?? []) };
    },
  },
  record: publicationsDataSchema,
  example: { summary: "the first page of publications", data: example },
  tagDescription: "Publication lists",
  paging,
  parse: (query) => parsePublications(query),
  source: publicationsSource,
});
