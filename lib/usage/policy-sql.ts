/** The usage domain's SQL, paths from the app directory: the latency buckets and the daily rollup settlement writes. */
export const usagePolicySql = ["lib/usage/daily.sql"] as const;
