/**
 * The keys domain's SQL, paths from the app directory (docs/architecture.md "Migrations"). The
 * usable-key rule comes first in the credit policy: every other policy file reads it.
 */
export const keysUsableSql = ["lib/keys/usable-keys.sql"] as const;

/** Automatic refills (docs/api.md "Keys"): they read the key policy columns, so they run after those migrations. */
export const keysRefillSql = ["lib/keys/refill.sql"] as const;
