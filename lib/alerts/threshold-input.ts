import { z } from "zod";

/**
 * What the console API (and the CLI, through lib/keys/policy-input.ts) accepts for a key's alert
 * thresholds: a few levels in credits or in percent of the credits granted.
 */
export const MAX_ALERT_THRESHOLDS = 10;

export const alertThresholdsField = z
  .array(
    z.union(
      [
        z.strictObject({
          credits: z
            .int({ error: "A threshold is a whole number of credits." })
            .min(1, "A threshold is at least 1 credit (reaching 0 always alerts).")
            .max(1_000_000_000, "A threshold is at most 1,000,000,000 credits."),
        }),
        z.strictObject({
          percent: z
            .int({ error: "A threshold is a whole percentage." })
            .min(1, "A percentage threshold is 1 to 99.")
            .max(99, "A percentage threshold is 1 to 99."),
        }),
      ],
      { error: "Each threshold is {credits: N} or {percent: P}." },
    ),
    { error: "alertThresholds must be a list." },
  )
  .max(MAX_ALERT_THRESHOLDS, `A key has at most ${MAX_ALERT_THRESHOLDS} alert thresholds.`);

export type AlertThreshold = z.infer<typeof alertThresholdsField>[number];
