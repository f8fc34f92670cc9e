import { runLookup, type PipelineResult } from "@/lib/api/pipeline";
import { operationById } from "@/lib/operations";
import type { Db } from "@/lib/db/client";
import { getProviderKeyView } from "@/lib/connectors/provider-keys";
import { env } from "@/lib/env";
import { consoleToken } from "@/lib/keys/manage";
import { services } from "@/lib/services";
import { ConsoleError } from "./handler";

/**
 * Console lookups run the /v1 pipeline in-process with the user's console key: same checks,
 * same credits, same usage records — and the key's token never leaves the server.
 */
export const consoleLookup = async (
  db: Db,
  userId: string,
  operation: string,
  query: URLSearchParams,
): Promise<PipelineResult> => {
  const spec = operationById(operation);
  if (!spec) throw new ConsoleError(404, "not_found", "No such operation.");
  const credentials = await consoleToken(db, userId);
  if (!credentials) {
    throw new ConsoleError(409, "no_console_key", "Choose a console key on the Keys page before running lookups.");
  }
  const noProviderKey = () =>
    new ConsoleError(409, "no_provider_key", "Add your provider key on the Provider key page before running lookups.");
  const config = env();
  const needsProviderKey = config.UPSTREAM_KEY_MODE === "per-user" && config.DATA_SOURCE !== "store";
  const hasProviderKey = needsProviderKey ? (await getProviderKeyView(db, userId)) !== null : true;
  // Everything comes from the provider: say so before anything runs.
  if (!hasProviderKey && config.DATA_SOURCE === "upstream") throw noProviderKey();
  const result = await runLookup(spec, { authorization: `Bearer ${credentials.token}`, query }, await services());
  // Store first: a miss needed the provider. /v1 can only say 500; the console says what to do.
  if (!hasProviderKey && result.status === 500) throw noProviderKey();
  return result;
};

/** The pipeline's answer as the browser gets it: the envelope, status and credit headers. */
export const lookupResponse = (result: PipelineResult): Response =>
  new Response(result.body, {
    status: result.status,
    headers: { ...result.headers, "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
