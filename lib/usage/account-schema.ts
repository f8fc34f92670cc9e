import { z } from "zod";

/**
 * data of GET /v1/account (free: no credits, no usage record). Lives apart from account.ts so
 * the OpenAPI document can import it without database code.
 */
export const accountKeySchema = z
  .object({
    id: z.string().describe("The key's id"),
    name: z.string().describe("The key's name, as set in the console"),
    credits_remaining: z.number().int().min(0).describe("Credits the key can still spend"),
    credits_granted: z.number().int().min(0).describe("Credits ever granted to the key (issuance and top-ups)"),
    qps_limit: z.number().int().min(1).describe("Requests per second the key may make"),
    daily_credit_cap: z.number().int().min(0).nullable().describe("Credits the key may spend per UTC day; null: no cap"),
    credits_spent_today: z.number().int().min(0).describe("Credits spent since midnight UTC, reservations in flight included"),
    credits_spent_this_month: z
      .number()
      .int()
      .min(0)
      .describe("Credits spent since the first of this month, 00:00 UTC, reservations in flight included"),
    refill: z
      .object({
        credits: z.number().int().min(1).describe("Credits of each refill"),
        interval: z.enum(["daily", "monthly"]).describe("A refill at each UTC day start, or each month"),
        dayOfMonth: z.number().int().min(1).max(31).nullable().describe("Monthly: the day it runs (the last day of a shorter month); null: the 1st"),
        mode: z
          .enum(["top_up_to", "increase_by"])
          .describe("top_up_to: the balance is raised to `credits` (never lowered); increase_by: `credits` are added"),
      })
      .nullable()
      .describe("The key's automatic refill; null: none"),
    nextRefillAt: z.iso.datetime().nullable().describe("When the next refill runs (UTC); null: no refill"),
  })
  .meta({ id: "AccountKey" });

export const accountDataSchema = z.object({ key: accountKeySchema }).meta({ id: "Account" });

export type AccountData = z.infer<typeof accountDataSchema>;
