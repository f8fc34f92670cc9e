import type { z } from "zod";
import type { RecordKind } from "@/lib/records/kinds";
import { UpstreamBadAnswerError } from "./upstream-client";

const issuePath = (error: z.ZodError): string => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
};

/** The provider's `data` checked against the source's schema; a bad answer names the kind and the first issue. */
export const providerRecord = <Data>(kind: RecordKind, schema: z.ZodType<Data>, data: unknown): Data => {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new UpstreamBadAnswerError(`invalid ${kind.cacheKind} from the provider (${issuePath(parsed.error)})`);
  return parsed.data;
};
