import { z } from "zod";
import { recordAudit, type Actor } from "@/lib/audit/log";
import type { Db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { DomainError } from "@/lib/errors";
import { sealBatchToken } from "@/lib/batches/payer";
import { refillField } from "@/lib/keys/policy-input";
import { createKey } from "@/lib/keys/repository";
import { keysChanged } from "@/lib/keys/workspace-console";
import { hashPassword } from "@/lib/users/passwords";
import { createUser, EmailTakenError, spendAllowance, type User } from "@/lib/users/repository";
import { memberRole, requireWorkspaceRole, type Membership } from "@/lib/workspaces/access";
import { acceptInvitation, pendingInvitation, type Invitation } from "@/lib/workspaces/invitations";
import { lockMemberSpending, memberBudgetLeft, removeMember, type Member } from "@/lib/workspaces/members";
import { addPoolCredits, type Workspace } from "@/lib/workspaces/repository";
import { WORKSPACE_ROLES, type WorkspaceRole } from "@/lib/workspaces/roles";

/**
 * The console JSON API of workspaces (/api/workspaces/*, /api/invitations/*): request bodies,
 * the views a browser gets, and the steps a route composes from more than one domain (a
 * removal that hands the member's open batches to a key of the workspace, a pool funded from
 * an allowance). Who may do what is asked of lib/workspaces/access.ts, once per route.
 */
export const actorOf = (user: User, ip: string): Actor & { id: string } => ({ id: user.id, email: user.email, ip });

const roleField = z.enum(WORKSPACE_ROLES, { error: "role must be owner, admin, analyst or viewer." });

const nameField = z
  .string({ error: "Give the workspace a name." })
  .trim()
  .min(1, "Give the workspace a name.")
  .max(100, "Keep the name to 100 characters or fewer.");

const creditsField = (what: string) =>
  z
    .int({ error: `${what} must be a whole number.` })
    .min(1, `${what} must be at least 1.`)
    .max(1_000_000_000, `${what} can be at most 1,000,000,000.`);

export const newWorkspaceBody = z.strictObject({ name: nameField });

export const workspacePatchBody = z
  .strictObject({
    name: nameField.optional(),
    qpsLimit: z
      .int({ error: "The shared per-second limit must be a whole number, or null for none." })
      .min(1, "The shared per-second limit must be at least 1.")
      .max(100_000, "The shared per-second limit can be at most 100,000.")
      .nullable()
      .optional(),
    /** The pool's automatic refill (null: none); the service administrator grants it. */
    refill: refillField.optional(),
  })
  .refine((patch) => patch.name !== undefined || patch.qpsLimit !== undefined || patch.refill !== undefined, {
    message: "Change the name, qpsLimit or refill.",
  });

export const invitationBody = z.strictObject({
  email: z.string({ error: "Give the invitee's e-mail address." }).trim().toLowerCase().max(320, "That address is too long.").pipe(z.email("Give a valid e-mail address.")),
  role: roleField,
});

export const memberPatchBody = z
  .strictObject({
    role: roleField.optional(),
    monthlyBudgetCredits: z
      .int({ error: "The monthly budget must be a whole number of credits, or null for none." })
      .min(0, "The monthly budget cannot be negative.")
      .max(1_000_000_000, "The monthly budget can be at most 1,000,000,000 credits.")
      .nullable()
      .optional(),
  })
  .refine((patch) => patch.role !== undefined || patch.monthlyBudgetCredits !== undefined, { message: "Change the role or monthlyBudgetCredits." });

export const poolCreditsBody = z.strictObject({ credits: creditsField("Credits") });

const tokenField = z.string({ error: "Give the invitation's token." }).trim().min(1, "Give the invitation's token.").max(200, "That is not an invitation token.");

export const invitationTokenBody = z.strictObject({ token: tokenField });

export const acceptBody = z.strictObject({
  token: tokenField,
  password: z.string({ error: "The password must be text." }).min(12, "password: must be at least 12 characters").max(200, "password: must be at most 200 characters").optional(),
  name: z.string({ error: "The name must be text." }).trim().min(1, "Give your name.").max(100, "Keep your name to 100 characters or fewer.").optional(),
});

export type WorkspaceView = {
  id: string;
  name: string;
  personal: boolean;
  /** The viewer's role; null for the service administrator in a workspace they are not a member of. */
  role: WorkspaceRole | null;
  poolCredits: number;
  poolGranted: number;
  qpsLimit: number | null;
  createdAt: string;
};

export const workspaceView = (workspace: Workspace, role: WorkspaceRole | null): WorkspaceView => ({
  id: workspace.id,
  name: workspace.name,
  personal: workspace.personal,
  role,
  poolCredits: workspace.poolCredits,
  poolGranted: workspace.poolGranted,
  qpsLimit: workspace.qpsLimit,
  createdAt: workspace.createdAt.toISOString(),
});

/** A member as the browser gets it; `spentThisMonthCredits` where the caller read it (the members list). */
export const memberView = (member: Member, spentThisMonthCredits?: number) => ({
  userId: member.userId,
  email: member.email,
  name: member.name,
  role: member.role,
  monthlyBudgetCredits: member.monthlyBudgetCredits,
  ...(spentThisMonthCredits === undefined ? {} : { spentThisMonthCredits }),
  joinedAt: member.joinedAt.toISOString(),
});

/** The invitation's link: the token rides in the fragment, which no server log or Referer carries. */
export const invitationUrl = (request: Request, token: string): string => {
  const configured = env().PUBLIC_URL;
  const origin = configured !== undefined ? new URL(configured).origin : new URL(request.url).origin;
  return `${origin}/invitations/accept#token=${token}`;
};

export const invitationView = (invitation: Invitation) => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  invitedBy: invitation.invitedBy,
  createdAt: invitation.createdAt.toISOString(),
  expiresAt: invitation.expiresAt.toISOString(),
});

/** The batch key's pace: the console key's default. */
const HANDOVER_KEY_QPS = 5;

/**
 * Removes a member and lets their open batches finish under the workspace: they move to a new key
 * of no one, drawing from the pool, whose token is only ever sealed into those batches (never
 * shown). That key spends on the member's behalf: its usage is theirs, and a monthly budget they
 * had bounds it — what was left of it this month, as the key's own monthly cap. The revoked keys
 * are forgotten by every instance at once.
 */
export const removeMemberAndHandOver = async (db: Db, secret: string, actor: Actor, membership: Membership, userId: string) => {
  const removal = await db.transaction(async (tx) => {
    // A reservation of theirs in flight counts in what is left, and none starts before they are out.
    await lockMemberSpending(tx, membership.workspace.id, userId);
    const budget = membership.workspace.personal ? null : await memberBudgetLeft(tx, membership.workspace.id, userId);
    const removed = await removeMember(tx, actor, membership, userId);
    if (removed.openBatchIds.length > 0) {
      const issued = await createKey(tx, secret, {
        name: `Batches of ${removed.member.email} (removed)`,
        ownerId: null,
        onBehalfOf: userId,
        credits: 0,
        qpsLimit: HANDOVER_KEY_QPS,
        expiresAt: null,
        workspaceId: membership.workspace.id,
        cap: budget === null ? null : { credits: budget, period: "month" },
      });
      for (const batchId of removed.openBatchIds) {
        await tx.query("UPDATE batches SET key_id = $2, token_sealed = $3, updated_at = now() WHERE id = $1", [
          batchId,
          issued.key.id,
          sealBatchToken(batchId, issued.token),
        ]);
      }
    }
    return removed;
  });
  keysChanged(removal.revokedKeyIds);
  return removal;
};

/**
 * Adds credits to a team's pool: the service administrator grants them; an owner or admin
 * (pool.fund) moves them from their own credit allowance, in the same transaction.
 */
export const fundPool = (db: Db, user: User, ip: string, workspaceId: string, credits: number): Promise<Workspace> =>
  db.transaction(async (tx) => {
    const membership = await requireWorkspaceRole(tx, user, workspaceId, "pool.fund");
    if (membership.workspace.personal) {
      throw new DomainError("workspace_rule", "A personal workspace has no pool: its keys keep their own credits.");
    }
    const from = user.role === "admin" ? "grant" : "allowance";
    if (from === "allowance" && !(await spendAllowance(tx, user.id, credits))) {
      throw new DomainError("key_rule", "Not enough credit allowance for that many credits. Ask an administrator for more.");
    }
    const workspace = await addPoolCredits(tx, actorOf(user, ip), workspaceId, credits, from);
    if (!workspace) throw new DomainError("not_found", "No such workspace.");
    return workspace;
  });

/** Whether an invitation may make an account (INVITATION_SIGNUP; docs/teams.md "Who makes accounts"). */
export const invitationSignUp = (): boolean => env().INVITATION_SIGNUP === "on";

const noAccountYet = (email: string): DomainError =>
  new DomainError(
    "forbidden",
    `There is no account for ${email} yet, and on this service accounts are made by its administrator: ask them to create one, then open this link again to join.`,
  );

/**
 * POST /api/invitations/accept: the signed-in invitee joins; a visitor whose address has no
 * account yet sets a password (and a name) and joins with a new account, then signs in. A
 * visitor whose address has an account signs in first.
 */
export const acceptAs = async (
  db: Db,
  user: User | null,
  ip: string,
  body: z.infer<typeof acceptBody>,
): Promise<{ workspace: Workspace; role: WorkspaceRole; accountCreated: boolean }> => {
  if (user) {
    const workspace = await db.transaction((tx) => acceptInvitation(tx, actorOf(user, ip), body.token));
    return { workspace, role: (await memberRole(db, workspace.id, user.id)) ?? "viewer", accountCreated: false };
  }
  const pending = await pendingInvitation(db, body.token);
  const email = pending.invitation.email;
  if (pending.hasAccount) throw new DomainError("unauthenticated", `Sign in as ${email} to accept this invitation.`);
  if (!invitationSignUp()) throw noAccountYet(email);
  if (body.password === undefined) {
    throw new DomainError("invalid_request", "password: set a password (at least 12 characters) to create your account.");
  }
  const passwordHash = await hashPassword(body.password);
  const workspace = await db.transaction(async (tx) => {
    let created: User;
    try {
      created = await createUser(tx, { email, name: body.name ?? email, role: "analyst", passwordHash, creditAllowance: 0, createdVia: "invitation" });
    } catch (error) {
      if (error instanceof EmailTakenError) throw new DomainError("unauthenticated", `Sign in as ${email} to accept this invitation.`);
      throw error;
    }
    const actor = actorOf(created, ip);
    await recordAudit(tx, actor, "user.create", { type: "user", id: created.id }, { email, role: "analyst", via: "invitation" });
    return acceptInvitation(tx, actor, body.token);
  });
  return { workspace, role: pending.invitation.role, accountCreated: true };
};
