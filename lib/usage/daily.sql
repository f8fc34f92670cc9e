-- The daily rollup (usage_daily): written in the same transaction as the usage rows it counts.
-- latency_buckets[i]: bucket 1 counts latencies under 1 ms, bucket i (2…15) [2^(i-2), 2^(i-1)) ms,
-- bucket 16 everything from 16,384 ms up; lib/usage/latency.ts mirrors usage_bucket().

-- Per latency: the threshold table instead of a numeric logarithm (same buckets, far cheaper).
CREATE OR REPLACE FUNCTION usage_bucket(latency_ms integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$
  SELECT width_bucket(latency_ms, '{1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384}'::integer[]) + 1
$b$;

-- Adds requests to the rollup, set-based: one upsert per (key, UTC day, operation, status) for
-- the whole set, in key order so that concurrent writers lock rollup rows in the same order.
-- p_sign: 1 adds the requests, -1 takes them out again (a voided charge). plpgsql, not sql, so
-- that the statement's plan is kept between calls.
CREATE OR REPLACE FUNCTION add_usage_daily(
  p_keys text[], p_at timestamptz[], p_operations text[], p_statuses integer[], p_credits integer[], p_latencies integer[],
  p_sign integer DEFAULT 1
) RETURNS void LANGUAGE plpgsql AS $d$
BEGIN
  INSERT INTO usage_daily AS d (key_id, day, operation, status, requests, credits, latency_ms_sum, latency_buckets)
  SELECT g.key_id, g.day, g.operation, g.status, p_sign * g.requests, p_sign * g.credits, p_sign * g.latency_ms_sum,
         (SELECT array_agg(p_sign * (SELECT count(*) FROM unnest(g.latencies) AS l WHERE usage_bucket(l) = b)::integer ORDER BY b)
          FROM generate_series(1, 16) AS b)
  FROM (SELECT r.key_id, (r.at AT TIME ZONE 'UTC')::date AS day, r.operation, r.status, count(*) AS requests,
               sum(r.credits) AS credits, sum(r.latency_ms) AS latency_ms_sum, array_agg(r.latency_ms) AS latencies
        FROM unnest(p_keys, p_at, p_operations, p_statuses, p_credits, p_latencies) AS r(key_id, at, operation, status, credits, latency_ms)
        GROUP BY 1, 2, 3, 4) g
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (key_id, day, operation, status) DO UPDATE SET
    requests = d.requests + EXCLUDED.requests,
    credits = d.credits + EXCLUDED.credits,
    latency_ms_sum = d.latency_ms_sum + EXCLUDED.latency_ms_sum,
    latency_buckets = (SELECT array_agg(mine + theirs ORDER BY i)
                       FROM unnest(d.latency_buckets, EXCLUDED.latency_buckets) WITH ORDINALITY AS t(mine, theirs, i));
END
$d$;

-- Replaced by add_usage_daily (one upsert per group instead of one per request).
DROP FUNCTION IF EXISTS record_daily(text, timestamptz, text, integer, integer, integer);
