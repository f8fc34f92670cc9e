import type { SubjectKind } from "@/lib/records/subject-kinds";

/**
 * What the browser knows of an operation: plain data, no zod, no server code. Each operation's
 * `<name>/descriptor.ts` declares one, its `<name>/index.ts` builds the whole operation on it
 * (lib/operations/define.ts), and console pages import only descriptors
 * (lib/operations/descriptors.ts), so record schemas, OpenAPI examples and parsers stay out of
 * the browser bundle. A descriptor file imports types and other browser-safe modules only
 * (lib/operations/descriptors.test.ts checks it).
 */
export type OperationLabel = {
  /** Short name in tables, legends and CSV: "Publications". */
  short: string;
  /** Which site: "Professional network". */
  site: string;
  /** What a caller passes: "Profile URN, 10 per page". */
  lookedUpBy: string;
};

export type OperationDescriptor<Id extends string = string> = {
  /** The contract's operation id, also the usage label key and the console route's segment. */
  id: Id;
  /** The /v1 path: "/v1/<site>/<operation>". */
  path: `/v1/${string}`;
  costCredits: number;
  /** Records per page, or null when the answer is one record. */
  pageSize: number | null;
  /** The one parameter a single line of a batch (or a recent lookup) fills in ("url", "event_id", "userid", "urn"). */
  primaryParam: string;
  label: OperationLabel;
  /** Which data subject the input names: what suppression and subject access reach (lib/privacy); absent when it names no person. */
  subjectKind?: SubjectKind;
  /** Chart colour: a mid-tone that reads on the light and the dark surface alike. */
  chartColor: string;
  /**
   * The operation's name in the SDKs and the command line (clients/), when the id's camelCase is
   * not what a caller would write: "publications" for get_user_publications. See ./client-name.ts.
   */
  clientName?: string;
};
