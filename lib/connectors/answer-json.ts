/**
 * The `data` JSON of each operation's answer, assembled from records already stored as canonical
 * JSON text (store-records.ts) without parsing them again. One builder for the store connector and
 * the upstream cache (hits and misses), so every path answers the same bytes.
 */
export const eventDataJson = (recordJson: string): string => `{"event":${recordJson}}`;

export const followersDataJson = (entriesJson: readonly string[], nodeId: string, hasNext: boolean, endCursor: string | null): string =>
  `{"followers":[${entriesJson.join(",")}],"node_id":${JSON.stringify(nodeId)},` +
  `"page_info":{"has_next_page":${hasNext},"end_cursor":${endCursor === null ? "null" : JSON.stringify(endCursor)}}}`;

export const publicationsDataJson = (page: number, total: number, hasMore: boolean, entriesJson: readonly string[]): string =>
  `{"page":${page},"total":${total},"has_more":${hasMore},"data":[${entriesJson.join(",")}]}`;
