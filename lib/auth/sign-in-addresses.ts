import type { Queryable } from "@/lib/db/client";

/**
 * Addresses a user has signed in from with their password. The per-account backoff of
 * sign-in (lib/auth/sign-in.ts) spares these, so guessing from elsewhere cannot lock the owner out.
 */
export const FAMILIAR_FOR_DAYS = 30;

export const rememberSignInAddress = async (db: Queryable, userId: string, address: string): Promise<void> => {
  await db.query(
    `INSERT INTO sign_in_addresses (user_id, address) VALUES ($1, $2)
     ON CONFLICT (user_id, address) DO UPDATE SET last_success_at = now()`,
    [userId, address],
  );
};

/** Whether the account with this (normalised) email signed in from this address recently. */
export const isFamiliarAddress = async (db: Queryable, email: string, address: string): Promise<boolean> =>
  (
    await db.query<{ one: number }>(
      `SELECT 1 AS one FROM sign_in_addresses a JOIN users u ON u.id = a.user_id
       WHERE u.email = $1 AND a.address = $2 AND a.last_success_at > now() - make_interval(days => $3)`,
      [email, address, FAMILIAR_FOR_DAYS],
    )
  ).length > 0;
