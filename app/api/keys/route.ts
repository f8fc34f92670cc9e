import { z } from "zod";
import { consoleRoute } from "@/lib/console-api/handler";
import { DomainError } from "@/lib/errors";
import { issueKey, visibleKeys, workspaceKeys } from "@/lib/keys/manage";
import { capComplete, capOf, keyCapFields, keyPolicyFields } from "@/lib/keys/policy-input";
import { keyView, keyViews, principalOf } from "@/lib/keys/view";
import { authSecret } from "@/lib/security/secrets";

const listQuery = z.object({
  scope: z.enum(["mine", "all"], { error: "scope must be mine or all." }).default("mine"),
  workspaceId: z.string().max(100, "That is not a workspace id.").optional(),
});

const newKeyBody = z.object({
  name: z
    .string({ error: "Give the key a name." })
    .trim()
    .min(1, "Give the key a name.")
    .max(100, "Keep the name to 100 characters or fewer."),
  credits: z
    .int({ error: "Credits must be a whole number." })
    .min(0, "Credits cannot be negative.")
    .max(1_000_000_000, "A key holds at most 1,000,000,000 credits.")
    .optional(),
  qpsLimit: z
    .int({ error: "The per-second limit must be a whole number." })
    .min(1, "The per-second limit must be at least 1.")
    .max(1000, "The per-second limit can be at most 1000.")
    .default(5),
  expiresAt: z.iso
    .datetime({ offset: true, error: "Expiry must be an ISO date-time, e.g. 2030-01-31T12:00:00Z." })
    .refine((value) => Date.parse(value) > Date.now(), "Expiry must be in the future.")
    .nullish(),
  useForConsole: z.boolean({ error: "Must be true or false." }).default(false),
  /** The workspace the key belongs to (docs/teams.md); default: the personal one. */
  workspaceId: z.string({ error: "workspaceId must be a workspace id." }).trim().min(1, "workspaceId must be a workspace id.").max(100, "That is not a workspace id.").optional(),
  ...keyCapFields,
  ...keyPolicyFields,
})
  .superRefine(capComplete)
  // A personal key is given credits from the maker's allowance (0 is allowed); a team key draws from the pool.
  .superRefine((body, context) => {
    if (body.credits === undefined && body.workspaceId === undefined) context.addIssue({ code: "custom", message: "Credits must be a whole number.", path: ["credits"] });
  });

/**
 * The viewer's keys; an admin may ask for everyone's with ?scope=all. With ?workspaceId= a
 * workspace's keys with who made each: all of them for its owners and admins, their own for an
 * analyst, refused (403) for a viewer.
 */
export const GET = consoleRoute({}, async ({ user, query, db, ip }) => {
  const parsed = listQuery.safeParse({ scope: query.get("scope") ?? undefined, workspaceId: query.get("workspaceId") ?? undefined });
  if (!parsed.success) throw new DomainError("invalid_request", parsed.error.issues[0]?.message ?? "Invalid scope.");
  if (parsed.data.workspaceId !== undefined) {
    const keys = await workspaceKeys(db, principalOf(user, ip), parsed.data.workspaceId);
    return { keys: await keyViews(db, user.id, keys) };
  }
  if (parsed.data.scope === "all" && user.role !== "admin") {
    throw new DomainError("forbidden", "Only an administrator can list every key.");
  }
  const keys = await visibleKeys(db, principalOf(user, ip), parsed.data.scope);
  return { keys: await keyViews(db, user.id, keys) };
});

/** Issues a key; the response is the only place its token ever appears. */
export const POST = consoleRoute({ body: newKeyBody, status: 201 }, async ({ user, body, db, ip }) => {
  const { capCredits, capPeriod, ...rest } = body;
  const issued = await issueKey(db, authSecret(), principalOf(user, ip), {
    ...rest,
    expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
    credits: body.credits ?? 0,
    cap: capOf(capCredits, capPeriod),
  });
  return { key: await keyView(db, user.id, issued.key), token: issued.token };
});
