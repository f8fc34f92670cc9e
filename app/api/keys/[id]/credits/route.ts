import { z } from "zod";
import { consoleRoute, notFound } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { topUpAnyKey, visibleKey } from "@/lib/keys/manage";
import { keyView, principalOf } from "@/lib/keys/view";

const topUpBody = z.object({
  credits: z
    .int({ error: "Credits must be a whole number." })
    .min(1, "Add at least 1 credit.")
    .max(1_000_000_000, "Add at most 1,000,000,000 credits at once."),
  reason: z
    .string({ error: "Give a reason for the top-up." })
    .trim()
    .min(3, "Give a reason for the top-up (at least 3 characters).")
    .max(500, "Keep the reason to 500 characters or fewer."),
});

/** Admin only: adds credits to any active key, with a reason kept in the audit log. */
export const POST = consoleRoute({ body: topUpBody, role: "admin" }, async ({ user, body, params, db, ip }) => {
  const principal = principalOf(user, ip);
  const id = params.id ?? "";
  const current = await visibleKey(db, principal, id);
  if (!current) throw notFound("No such key.");
  if (current.status !== "active") throw new DomainError("key_rule", "Only an active key can be topped up.");
  const key = await topUpAnyKey(db, principal, id, body.credits, body.reason);
  if (!key) throw notFound("No such key.");
  return { key: await keyView(db, user.id, key) };
});
