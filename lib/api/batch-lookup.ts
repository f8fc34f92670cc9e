import type { BatchLookup, BatchPageAnswer } from "@/lib/batches/services";
import { ATTR } from "@/lib/tracing/attributes";
import { withSpan } from "@/lib/tracing/spans";
import { runLookup, type PipelineDeps, type PipelineResult } from "./pipeline";

/**
 * A batch's page looked up through the /v1 pipeline with the paying key, on the batch channel
 * (lib/batches/services.ts): the checks, charge and usage record are a lookup's. The process
 * hands this to the batch runner when it starts its background jobs (instrumentation.ts).
 */
const envelopeOf = (body: string): { message?: unknown; data?: unknown } => {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
};

const pageAnswerOf = (result: PipelineResult): BatchPageAnswer => {
  const envelope = envelopeOf(result.body);
  return {
    status: result.status,
    creditsCharged: Number(result.headers["X-Credits-Charged"] ?? 0),
    requestId: result.requestId,
    message: typeof envelope.message === "string" ? envelope.message : null,
    data: envelope.data ?? null,
  };
};

/**
 * Each lookup is a trace of its own (no HTTP request carries it; the runner may have been woken
 * inside one that is long over), named by its operation and carrying its request id: the same
 * id as its usage record and its line in the results.
 */
export const pipelineBatchLookup =
  (deps: PipelineDeps): BatchLookup =>
  (operation, page) =>
    withSpan(
      `batch lookup ${operation.path}`,
      { [ATTR.channel]: "batch", [ATTR.operation]: operation.id },
      async (span) => {
        const result = await runLookup(
          operation,
          { authorization: `Bearer ${page.token}`, query: page.query, clientAddress: null, channel: "batch", maxAgeS: page.maxAgeS },
          deps,
        );
        span.setAttributes({ [ATTR.requestId]: result.requestId, [ATTR.keyId]: result.keyId, [ATTR.httpResponseStatusCode]: result.status });
        if (result.status >= 500) span.fail(String(result.status));
        return pageAnswerOf(result);
      },
      { parent: "none" },
    );
