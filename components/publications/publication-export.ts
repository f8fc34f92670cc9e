import type { CsvColumn } from "@/lib/export/csv";
import type { Publication, PublicationsPage } from "@/lib/query/publications";

/** CSV columns of a publications export: the record's own fields, in contract order. */
export const publicationCsvColumns: readonly CsvColumn<Publication>[] = [
  { header: "title", value: (publication) => publication.title },
  { header: "publication", value: (publication) => publication.publication },
  { header: "date", value: (publication) => publication.date },
  { header: "description", value: (publication) => publication.description },
  { header: "publication_url", value: (publication) => publication.publication_url },
];

/**
 * Every publication of the pages held, in page order, each once (a record seen on two pages —
 * the list changed between lookups — is kept at its first place).
 */
export const loadedPublications = (pages: ReadonlyArray<PublicationsPage | undefined>): Publication[] => {
  const seen = new Set<string>();
  const result: Publication[] = [];
  const ordered = pages
    .filter((page): page is PublicationsPage => page !== undefined)
    .sort((left, right) => left.data.page - right.data.page);
  for (const page of ordered) {
    for (const publication of page.data.data) {
      const identity = JSON.stringify([
        publication.title,
        publication.publication,
        publication.date,
        publication.description,
        publication.publication_url,
      ]);
      if (seen.has(identity)) continue;
      seen.add(identity);
      result.push(publication);
    }
  }
  return result;
};
