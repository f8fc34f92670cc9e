import type { Queryable } from "@/lib/db/client";

/**
 * A lease on a periodic job, so that one instance at a time runs it (the retention sweep): one
 * statement takes the lease when it is free or lapsed, or renews it for its holder.
 */
export const claimJobLease = async (db: Queryable, job: string, owner: string, leaseMs: number): Promise<boolean> =>
  (
    await db.query(
      `INSERT INTO job_leases AS l (name, owner, expires_at) VALUES ($1, $2, now() + $3::integer * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE l.owner = EXCLUDED.owner OR l.expires_at < now()
       RETURNING name`,
      [job, owner, leaseMs],
    )
  ).length > 0;
