import { withCliDb, runCli } from "@/lib/cli/open";
runCli(async () => {
  const rows = await withCliDb((db) => db.query<{ key_id: string; entries: number; requests: number; aggregates: number }>(
    "SELECT key_id, count(*)::int AS entries, sum(requests)::int AS requests, count(*) FILTER (WHERE aggregate_second IS NOT NULL)::int AS aggregates FROM usage_events GROUP BY key_id"));
  const daily = await withCliDb((db) => db.query("SELECT key_id, status, requests::int FROM usage_daily"));
  console.log(JSON.stringify({ rows, daily }));
});
