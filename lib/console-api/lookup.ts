import { runLookup, type PipelineDeps, type PipelineResult } from "@/lib/api/pipeline";
import { getProviderKeyView } from "@/lib/connectors/provider-keys";
import type { Db } from "@/lib/db/client";
import { env, type Env } from "@/lib/env";
import { consoleToken } from "@/lib/keys/manage";
import { memberRole } from "@/lib/workspaces/access";
import { activeWorkspaceId } from "@/lib/workspaces/active";
import { roleMay } from "@/lib/workspaces/roles";
import { recordConsoleLookup } from "@/lib/usage/recent";
import { operationById, registry, type Registry } from "@/lib/operations";
import { services } from "@/lib/services";
import { DomainError } from "@/lib/errors";
import type { ConsoleContext } from "./handler";
import { cannotRunLookups, limitNotice, type LimitNotice } from "./spending-limits";

/**
 * Console lookups (GET /api/console/lookup/<operation id>) run the /v1 pipeline in-process with
 * the user's console key: same checks, same credits, same usage records — and the key's token
 * never leaves the server. Any operation of the registry is served; nothing here names one.
 */
export type ConsoleLookupDeps = {
  registry: Registry;
  services: () => Promise<PipelineDeps>;
  /** Where answers come from and whose provider key pays for them. */
  source: () => Pick<Env, "DATA_SOURCE" | "UPSTREAM_KEY_MODE">;
};

const processDeps: ConsoleLookupDeps = { registry, services, source: env };

const noProviderKey = () =>
  new DomainError("no_provider_key", "Add your provider key on the Provider key page before running lookups.");

export const consoleLookup = async (
  db: Db,
  userId: string,
  operationId: string,
  query: URLSearchParams,
  deps: ConsoleLookupDeps = processDeps,
  clientAddress = "local",
): Promise<PipelineResult> => {
  const operation = operationById(operationId, deps.registry);
  if (!operation) throw new DomainError("not_found", "No such operation.");
  // A role that may not run lookups in the active workspace (a viewer) is told so, not sent to the Keys page.
  const workspaceId = await activeWorkspaceId(db, userId);
  const role = await memberRole(db, workspaceId, userId);
  if (role !== null && !roleMay(role, "lookups.run")) {
    throw new DomainError("forbidden", cannotRunLookups(role));
  }
  const credentials = await consoleToken(db, userId);
  if (!credentials) {
    throw new DomainError("no_console_key", "Choose a console key on the Keys page before running lookups.");
  }
  const source = deps.source();
  const needsProviderKey = source.UPSTREAM_KEY_MODE === "per-user" && source.DATA_SOURCE !== "store";
  const hasProviderKey = needsProviderKey ? (await getProviderKeyView(db, userId)) !== null : true;
  // Everything comes from the provider: say so before anything runs.
  if (!hasProviderKey && source.DATA_SOURCE === "upstream") throw noProviderKey();
  const result = await runLookup(operation, { authorization: `Bearer ${credentials.token}`, query, clientAddress, channel: "console" }, await deps.services());
  // Marked as the console's own, for its "Recent lookups" (API-key and batch lookups are not).
  if (result.status === 200) await recordConsoleLookup(db, userId, result.requestId);
  // Store first: a miss needed the provider. /v1 can only say 500; the console says what to do.
  if (!hasProviderKey && result.status === 500) throw noProviderKey();
  // /v1 says only "quota is not enough"; the console says which limit ran out and who can lift it.
  if (result.status === 402) return withLimit(result, await limitNotice(db, credentials.keyId, role));
  return result;
};

/**
 * A 402's envelope with `limit`: {by, message} — the limit that leaves the least (/v1/account's
 * `limited_by`) and the console's sentence for it. The envelope's own fields stay /v1's.
 */
const withLimit = (result: PipelineResult, notice: LimitNotice | null): PipelineResult => {
  if (notice === null) return result;
  const envelope: unknown = JSON.parse(result.body);
  if (typeof envelope !== "object" || envelope === null) return result;
  return { ...result, body: JSON.stringify({ ...envelope, limit: { by: notice.by, message: notice.message } }) };
};

/** The pipeline's answer as the browser gets it: the envelope, status and credit headers. */
export const lookupResponse = (result: PipelineResult): Response =>
  new Response(result.body, {
    status: result.status,
    headers: { ...result.headers, "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });

/** The route handler's work: `consoleRoute({}, consoleLookupHandler())`; tests pass a registry of their own. */
export const consoleLookupHandler =
  (deps: ConsoleLookupDeps = processDeps) =>
  async ({ db, user, params, query, ip }: ConsoleContext<undefined>): Promise<Response> =>
    lookupResponse(await consoleLookup(db, user.id, params.operation ?? "", query, deps, ip));

/**
 * HEAD of a lookup: refused (405, as /v1 does), because Next would answer HEAD by running GET —
 * a lookup charged for an answer whose body is never sent.
 */
export const lookupHeadResponse = (): Response =>
  Response.json(
    { error: { code: "method_not_allowed", message: "Lookups answer GET only." } },
    { status: 405, headers: { Allow: "GET", "Cache-Control": "no-store" } },
  );

