// The trivial route the benchmark compares /v1 against: no database, no auth.
export const dynamic = "force-dynamic";

export const GET = (): Response => Response.json({ ok: true });
