import { consoleRoute } from "@/lib/console-api/handler";
import { updateUpstreamSettings, upstreamAdminView, upstreamSettingsBody, type UpstreamAdminDeps } from "@/lib/connectors/upstream-admin";
import { services } from "@/lib/services";

export const dynamic = "force-dynamic";

const deps: UpstreamAdminDeps = { connector: async () => (await services()).connector };

/** The upstream connection: status for the admin banner, settings (keys masked), breaker state. */
export const GET = consoleRoute({ role: "admin" }, ({ db }) => upstreamAdminView(db, deps));

export const PUT = consoleRoute({ role: "admin", body: upstreamSettingsBody }, ({ user, body, db }) =>
  updateUpstreamSettings(db, user.id, body, deps),
);
