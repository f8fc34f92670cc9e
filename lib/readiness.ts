import { getDb } from "@/lib/database";

/**
 * Whether this instance should be sent traffic (GET /readyz, the system page, the `ready`
 * metric). Each check names what failed, so a 503 says why.
 */
export type ReadinessCheckName = "migrations" | "database" | "embedded_worker" | "redis" | "draining";

export type ReadinessCheck = { name: ReadinessCheckName; ok: boolean; detail: string };

export type Readiness = { ready: boolean; checks: ReadinessCheck[] };

const holder = globalThis as typeof globalThis & { __socialLookupDraining?: boolean };

/** From SIGTERM on: not ready, so balancers stop sending new requests while in-flight ones finish. */
export const startDraining = (): void => {
  holder.__socialLookupDraining = true;
};

export const isDraining = (): boolean => holder.__socialLookupDraining === true;

export const readiness = async (): Promise<Readiness> => {
  const checks: ReadinessCheck[] = [];
  const database = await (await getDb()).query("SELECT 1").then(
    () => ({ ok: true, detail: "answers" }),
    (error: unknown) => ({ ok: false, detail: error instanceof Error ? error.message : String(error) }),
  );
  checks.push({ name: "database", ...database });
  checks.push({ name: "draining", ok: !isDraining(), detail: isDraining() ? "stopping: finishing requests in flight" : "serving" });
  return { ready: checks.every((check) => check.ok), checks };
};
