/**
 * The credit policy's SQL (docs/architecture.md "The credit policy, in SQL"): paths from the app
 * directory, in the order they are applied — settlement uses the daily-cap figure, sweep and void
 * use settlement's rollup. lib/database.ts applies them after the usable-key rule and the daily rollup.
 */
export const creditsPolicySql = [
  "lib/credits/spent-today.sql",
  "lib/credits/settle.sql",
  "lib/credits/sweep.sql",
  "lib/credits/void.sql",
] as const;
