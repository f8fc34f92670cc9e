import type { ConsoleContext } from "./handler";
import { DomainError } from "@/lib/errors";
import { visibleKey } from "@/lib/keys/manage";
import type { ApiKey } from "@/lib/keys/repository";
import { principalOf } from "@/lib/keys/view";
import { acknowledgeAlert, alertKeyId, keyAlerts, keyDeliveries, openAlerts, type KeyAlert, type WebhookDelivery } from "@/lib/alerts/alerts";
import {
  getAlertSettings,
  setAlertSettings,
  setDailyCreditCap,
  type AlertSettings,
  type AlertSettingsInput,
} from "@/lib/alerts/settings";
import { webhookSecret } from "@/lib/alerts/webhooks";
import { requireWorkspaceRole } from "@/lib/workspaces/access";

/**
 * The console JSON API of alerts and budgets: /api/alerts, /api/alerts/:id/ack,
 * /api/keys/:id/alerts and /api/keys/:id/budget. A key the caller may not see (an analyst and
 * another user's key) is 404, the same answer as a key that does not exist.
 */
type Context = Pick<ConsoleContext<unknown>, "db" | "user" | "ip">;

export type KeyAlertsView = {
  key: { id: string; name: string; status: ApiKey["status"]; ownerId: string | null };
  settings: AlertSettings;
  /** Only for the key's owner: the secret webhook signatures are made with. */
  signingSecret: string | null;
  alerts: KeyAlert[];
  deliveries: WebhookDelivery[];
};

const keyFor = async (context: Context, keyId: string): Promise<ApiKey> => {
  const key = await visibleKey(context.db, principalOf(context.user, context.ip), keyId);
  if (!key) throw new DomainError("not_found", "No such key.");
  return key;
};

const activeKeyFor = async (context: Context, keyId: string): Promise<ApiKey> => {
  const key = await keyFor(context, keyId);
  if (key.status !== "active") throw new DomainError("key_rule", "Only an active key has alerts and budgets.");
  return key;
};

const view = async (context: Context, key: ApiKey, settings: AlertSettings | null): Promise<KeyAlertsView> => {
  if (!settings) throw new DomainError("not_found", "No such key.");
  return {
    key: { id: key.id, name: key.name, status: key.status, ownerId: key.ownerId },
    settings,
    signingSecret: key.ownerId === context.user.id ? webhookSecret(key.id) : null,
    alerts: await keyAlerts(context.db, key.id),
    deliveries: await keyDeliveries(context.db, key.id),
  };
};

/** GET /api/keys/:id/alerts */
export const keyAlertsResponse = async (context: Context, keyId: string): Promise<KeyAlertsView> => {
  const key = await keyFor(context, keyId);
  return view(context, key, await getAlertSettings(context.db, key.id));
};

/** PUT /api/keys/:id/alerts */
export const updateKeyAlerts = async (context: Context, keyId: string, input: AlertSettingsInput): Promise<KeyAlertsView> => {
  const key = await activeKeyFor(context, keyId);
  return view(context, key, await setAlertSettings(context.db, key.id, input));
};

export type BudgetView = { keyId: string; dailyCreditCap: number | null; creditsSpentToday: number };

const budgetView = (keyId: string, settings: AlertSettings | null): BudgetView => {
  if (!settings) throw new DomainError("not_found", "No such key.");
  return { keyId, dailyCreditCap: settings.dailyCreditCap, creditsSpentToday: settings.creditsSpentToday };
};

/** GET /api/keys/:id/budget */
export const budgetResponse = async (context: Context, keyId: string): Promise<BudgetView> => {
  const key = await keyFor(context, keyId);
  return budgetView(key.id, await getAlertSettings(context.db, key.id));
};

/** PUT /api/keys/:id/budget */
export const updateBudget = async (context: Context, keyId: string, dailyCreditCap: number | null): Promise<BudgetView> => {
  const key = await activeKeyFor(context, keyId);
  // A team key's daily cap is one of the caps set for its maker: only those who manage the workspace's keys change it.
  if (key.poolId !== null) await requireWorkspaceRole(context.db, context.user, key.poolId, "keys.manage");
  return budgetView(key.id, await setDailyCreditCap(context.db, key.id, dailyCreditCap));
};

/** GET /api/alerts: the banner's alerts of the signed-in user's own keys. */
export const openAlertsResponse = async (context: Context): Promise<{ alerts: KeyAlert[] }> => ({
  alerts: await openAlerts(context.db, context.user.id),
});

/** POST /api/alerts/:id/ack */
export const acknowledgeResponse = async (context: Context, alertId: string): Promise<{ acknowledged: number }> => {
  const keyId = await alertKeyId(context.db, alertId);
  if (keyId === null) throw new DomainError("not_found", "No such alert.");
  if (!(await visibleKey(context.db, principalOf(context.user, context.ip), keyId))) throw new DomainError("not_found", "No such alert.");
  return { acknowledged: await acknowledgeAlert(context.db, alertId) };
};
