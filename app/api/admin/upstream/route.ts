import { consoleRoute } from "@/lib/console-api/handler";
import { updateUpstreamSettings, upstreamAdminView, upstreamSettingsBody } from "@/lib/connectors/upstream-admin";

export const dynamic = "force-dynamic";

/** The upstream connection: status for the admin banner, settings (keys masked), breaker state. */
export const GET = consoleRoute({ role: "admin" }, ({ db }) => upstreamAdminView(db));

export const PUT = consoleRoute({ role: "admin", body: upstreamSettingsBody }, ({ user, body, db }) =>
  updateUpstreamSettings(db, user.id, body),
);
