import { z } from "zod";
import type { Queryable } from "@/lib/db/client";
import { env } from "@/lib/env";
import { hostVerdict, NOT_PUBLIC, plainHttpAllowed, type OutboundPolicy } from "@/lib/security/outbound";

/**
 * Per-key low-credit alert settings and the daily credit budget. The charge itself (in
 * settle_requests, migration 0003_metering) compares against these columns in the same
 * statement, so a change here takes effect on the next request, on every instance.
 *
 * The alert threshold is either absolute (thresholdCredits) or a share of the credits granted
 * (thresholdPercent, rounded up to whole credits); a charge that takes the balance from above it
 * to at or below it records one alert, and reaching 0 records a "zero" alert.
 */
export type AlertSettings = {
  thresholdCredits: number | null;
  thresholdPercent: number | null;
  /** The threshold in credits the next charge is compared with; null when none is set. */
  effectiveThresholdCredits: number | null;
  webhookUrl: string | null;
  dailyCreditCap: number | null;
  creditsSpentToday: number;
  creditsRemaining: number;
  creditsGranted: number;
};

const MAX_CREDITS = 1_000_000_000;

/**
 * The delivery policy for webhooks (WEBHOOK_ALLOWED_NETWORKS); the worker checks the resolved
 * address again at connect time, so this save-time check is for the user's benefit.
 */
export const webhookPolicy = (): OutboundPolicy => env().WEBHOOK_ALLOWED_NETWORKS;

/**
 * https to a public address; plain http only where the self-hoster allowed internal networks
 * (internal receivers rarely have certificates). Address literals in any form and localhost
 * names are refused at once; a name is resolved and checked when each delivery connects.
 */
export const webhookUrlProblem = (raw: string, policy: OutboundPolicy = webhookPolicy()): string | null => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "The webhook URL is not a valid URL.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The webhook URL must use https.";
  if (url.username !== "" || url.password !== "") return "The webhook URL must not carry a user name or password.";
  if (hostVerdict(url, policy) === "refused") return `The webhook URL is ${NOT_PUBLIC}.`;
  if (url.protocol === "http:" && !plainHttpAllowed(url, policy)) return "The webhook URL must use https.";
  return null;
};

export const alertSettingsBody = z
  .object({
    thresholdCredits: z
      .int({ error: "The threshold must be a whole number of credits." })
      .min(1, "The threshold must be at least 1 credit (reaching 0 always alerts).")
      .max(MAX_CREDITS, "The threshold can be at most 1,000,000,000 credits.")
      .nullish(),
    thresholdPercent: z
      .int({ error: "The threshold must be a whole percentage." })
      .min(1, "The threshold must be between 1 and 99 %.")
      .max(99, "The threshold must be between 1 and 99 %.")
      .nullish(),
    webhookUrl: z
      .string({ error: "The webhook URL must be text." })
      .trim()
      .max(2000, "Keep the webhook URL to 2000 characters or fewer.")
      .nullish()
      .transform((value) => (value === "" || value === undefined ? null : value))
      .superRefine((value, context) => {
        const problem = value === null ? null : webhookUrlProblem(value);
        if (problem) context.addIssue({ code: "custom", message: problem });
      }),
  })
  .refine((body) => body.thresholdCredits == null || body.thresholdPercent == null, {
    message: "Set the threshold in credits or in percent, not both.",
    path: ["thresholdPercent"],
  });

export type AlertSettingsInput = z.infer<typeof alertSettingsBody>;

export const budgetBody = z.object({
  dailyCreditCap: z
    .int({ error: "The daily cap must be a whole number of credits, or null for none." })
    .min(0, "The daily cap cannot be negative.")
    .max(MAX_CREDITS, "The daily cap can be at most 1,000,000,000 credits.")
    .nullable(),
});

type SettingsRow = {
  alert_threshold_credits: number | null;
  alert_threshold_percent: number | null;
  effective: number | null;
  alert_webhook_url: string | null;
  daily_credit_cap: number | null;
  spent_today: number;
  credits_remaining: number;
  credits_granted: number;
};

// Same rounding as settle_requests: ceil(granted × percent / 100).
const SETTINGS_COLUMNS = `alert_threshold_credits::float8 AS alert_threshold_credits, alert_threshold_percent,
  COALESCE(alert_threshold_credits, CASE WHEN alert_threshold_percent IS NULL THEN NULL
    ELSE ceil(credits_granted * alert_threshold_percent / 100.0)::bigint END)::float8 AS effective,
  alert_webhook_url, daily_credit_cap::float8 AS daily_credit_cap, credits_spent_today(id)::float8 AS spent_today,
  credits_remaining::float8 AS credits_remaining, credits_granted::float8 AS credits_granted`;

const toSettings = (row: SettingsRow): AlertSettings => ({
  thresholdCredits: row.alert_threshold_credits,
  thresholdPercent: row.alert_threshold_percent,
  effectiveThresholdCredits: row.effective,
  webhookUrl: row.alert_webhook_url,
  dailyCreditCap: row.daily_credit_cap,
  creditsSpentToday: row.spent_today,
  creditsRemaining: row.credits_remaining,
  creditsGranted: row.credits_granted,
});

export const getAlertSettings = async (db: Queryable, keyId: string): Promise<AlertSettings | null> => {
  const rows = await db.query<SettingsRow>(`SELECT ${SETTINGS_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]);
  return rows[0] ? toSettings(rows[0]) : null;
};

/** Replaces the alert settings: a field left out is cleared. */
export const setAlertSettings = async (db: Queryable, keyId: string, input: AlertSettingsInput): Promise<AlertSettings | null> => {
  const rows = await db.query<SettingsRow>(
    `UPDATE api_keys SET alert_threshold_credits = $2, alert_threshold_percent = $3, alert_webhook_url = $4
     WHERE id = $1 RETURNING ${SETTINGS_COLUMNS}`,
    [keyId, input.thresholdCredits ?? null, input.thresholdPercent ?? null, input.webhookUrl],
  );
  return rows[0] ? toSettings(rows[0]) : null;
};

/** null removes the cap. Over it, /v1 answers 402 and the usage record says reason "daily_cap". */
export const setDailyCreditCap = async (db: Queryable, keyId: string, dailyCreditCap: number | null): Promise<AlertSettings | null> => {
  const rows = await db.query<SettingsRow>(
    `UPDATE api_keys SET daily_credit_cap = $2 WHERE id = $1 RETURNING ${SETTINGS_COLUMNS}`,
    [keyId, dailyCreditCap],
  );
  return rows[0] ? toSettings(rows[0]) : null;
};
