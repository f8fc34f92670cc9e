import { describeError, log } from "@/lib/log";
import { services } from "@/lib/services";
import { envelopeResponse, plainError } from "./envelope";
import { messages } from "./errors";
import type { Operation } from "@/lib/operations";
import { runLookup } from "./pipeline";

/** Turns a lookup spec into a /v1 GET route handler: the pipeline owns everything else. */
export const withApiKey =
  (spec: Operation) =>
  async (request: Request): Promise<Response> => {
    try {
      const deps = await services();
      const result = await runLookup(
        spec,
        { authorization: request.headers.get("authorization"), query: new URL(request.url).searchParams },
        deps,
      );
      return envelopeResponse(result.status, result.body, result.headers);
    } catch (error) {
      // The services could not start (e.g. database unreachable): still only the envelope.
      log.error("pipeline unavailable", { operation: spec.id, error: describeError(error) });
      return plainError(500, messages.internal);
    }
  };

/** Every other method on a /v1 operation path. */
export const methodNotAllowed = async (): Promise<Response> => {
  const response = plainError(405, messages.methodNotAllowed);
  response.headers.set("Allow", "GET");
  return response;
};
