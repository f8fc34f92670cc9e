import { consoleRoute } from "@/lib/console-api/handler";
import { keyAlertsResponse, updateKeyAlerts } from "@/lib/console-api/alerts";
import { alertSettingsBody } from "@/lib/alerts/settings";

export const dynamic = "force-dynamic";

/** The key's alert settings, signing secret (owner only), recent alerts and webhook deliveries. */
export const GET = consoleRoute({}, (context) => keyAlertsResponse(context, context.params.id ?? ""));

/** Replaces the settings: {thresholdCredits | thresholdPercent, webhookUrl}; a field left out is cleared. */
export const PUT = consoleRoute({ body: alertSettingsBody }, (context) =>
  updateKeyAlerts(context, context.params.id ?? "", context.body),
);
