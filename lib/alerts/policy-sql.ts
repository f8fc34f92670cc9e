/** The alerts domain's SQL, paths from the app directory: the thresholds a charge crosses (docs/api.md "Keys"). */
export const alertsPolicySql = ["lib/alerts/thresholds.sql"] as const;
