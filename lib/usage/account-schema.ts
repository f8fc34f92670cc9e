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
    pool: z
      .object({
        workspace_id: z.string().describe("The team workspace whose pool the key draws from"),
        credits_remaining: z.number().int().min(0).describe("Credits left in the pool, for all its keys"),
        credits_granted: z.number().int().min(0).describe("Credits ever added to the pool"),
      })
      .nullable()
      .describe("The team workspace's credit pool the key draws from (credits_remaining is then the pool's); null: the key has its own balance"),
    cap: z
      .object({
        credits: z.number().int().min(0).describe("Credits the key may spend in the period"),
        period: z.enum(["month", "total"]).describe("month: per calendar month (UTC); total: in all"),
        credits_spent: z.number().int().min(0).describe("Credits spent in the period, reservations in flight included"),
        credits_left: z.number().int().min(0).describe("Credits the cap still lets the key spend"),
      })
      .nullable()
      .describe("The key's own monthly or total cap (its daily one is daily_credit_cap); null: none"),
    budget: z
      .object({
        credits: z.number().int().min(0).describe("Credits the member's keys of the workspace may spend per calendar month (UTC)"),
        credits_spent_this_month: z.number().int().min(0).describe("Credits the member's keys of the workspace spent this month"),
        credits_left: z.number().int().min(0).describe("Credits the budget still lets them spend this month"),
      })
      .nullable()
      .describe("The monthly budget of the member who made the key, in its team workspace; null: none"),
    credits_spendable: z
      .number()
      .int()
      .min(0)
      .describe("Credits the key can spend now: the least of its balance (or pool), what its daily cap, own cap and member budget leave"),
    limited_by: z
      .enum(["credits", "pool", "daily_cap", "cap", "budget"])
      .describe("Which of them leaves the least: the key's own credits, the pool, the daily cap, the key's own cap, or the member's budget"),
  })
  .meta({ id: "AccountKey" });

export const accountDataSchema = z.object({ key: accountKeySchema }).meta({ id: "Account" });

export type AccountData = z.infer<typeof accountDataSchema>;
