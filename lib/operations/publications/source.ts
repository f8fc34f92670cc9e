import { pagedListSource } from "@/lib/connectors/paged-list";
import { kindOf } from "@/lib/connectors/source";
import { publicationJson, upsertPublicationList } from "@/lib/connectors/store-records";
import type { PublicationsParams } from "@/lib/records/params";
import { publicationSchema, publicationsDataSchema, type Publication, type PublicationsData } from "@/lib/records/records";
import { PUBLICATIONS_PAGE_SIZE } from "./descriptor";

/** The `data` of a publications answer, around the entries' canonical text. */
export const publicationsDataJson = (page: number, total: number, hasMore: boolean, entriesJson: readonly string[]): string =>
  `{"page":${page},"total":${total},"has_more":${hasMore},"data":[${entriesJson.join(",")}]}`;

/**
 * Where publication pages come from: a profile's row and its publications, or the provider's
 * numbered pages (which need not be ours in size: a fetched page is cached after the one before it).
 */
export const publicationsSource = pagedListSource<PublicationsParams, Publication, PublicationsData, PublicationsData>({
  kind: kindOf("profile"),
  pageSize: PUBLICATIONS_PAGE_SIZE,
  owner: (params) => params.urn,
  page: (params) => ({ number: params.page, start: (params.page - 1) * PUBLICATIONS_PAGE_SIZE }),
  placement: "after-previous-page",
  showsTotal: true,
  dataJson: (params, page) => publicationsDataJson(params.page, page.total, page.hasMore, page.entries),
  entryJson: publicationJson,
  parseEntry: (value) => publicationSchema.parse(value),
  writeList: (db, urn, publications, source) => upsertPublicationList(db, { urn, publications }, source),
  upstream: {
    path: "v1/jobsite/get_user_publications",
    query: async (params) => ({ query: { urn: params.urn, page: String(params.page) }, continuation: null }),
    schema: publicationsDataSchema,
    read: (data) => ({ entries: data.data, hasMore: data.has_more, total: data.total, next: null }),
  },
});
