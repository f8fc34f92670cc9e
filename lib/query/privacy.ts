import { queryOptions } from "@tanstack/react-query";
import type { SubjectKind } from "@/lib/records/subject-kinds";
import { fetchJson, jsonRequest } from "./fetch-json";

/** The Privacy page's calls (app/api/admin/suppressions, app/api/admin/subjects). */
export type SuppressionView = { kind: SubjectKind; subject: string; reason: string; createdByEmail: string; createdAt: string };
export type SuppressionInput = { kind: SubjectKind; subject: string; reason: string };
export type Erased = { records: number; cachePages: number; followerEntries: number; batchPages: number };

export const privacyKeys = { suppressions: ["admin", "suppressions"] as const };

export const suppressionsQuery = () =>
  queryOptions({
    queryKey: privacyKeys.suppressions,
    queryFn: async () => (await fetchJson<{ suppressions: SuppressionView[] }>("/api/admin/suppressions")).suppressions,
  });

export const suppress = (input: SuppressionInput) =>
  fetchJson<SuppressionInput & { erased: Erased }>("/api/admin/suppressions", jsonRequest("POST", input));

export const liftSuppression = (input: SuppressionInput) =>
  fetchJson<{ lifted: true }>("/api/admin/suppressions", jsonRequest("DELETE", input));

/** The subject-access document, downloaded as a file. */
export const subjectAccessUrl = (kind: SubjectKind, subject: string) =>
  `/api/admin/subjects/${kind}/${encodeURIComponent(subject.trim())}`;
