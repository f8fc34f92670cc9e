/**
 * The order migrations are applied in (docs/architecture.md "Migrations"). A plain migration is
 * `<id>.sql` in this folder: it runs once, is recorded in schema_migrations, and is never edited
 * once landed — add one. A repeatable migration has no file here: its SQL is the current text of
 * the policy files its domains list (lib/database.ts hands them in), applied again whenever that
 * text changes. Every `.sql` file of this folder must be listed here (lib/db/migrate.ts checks).
 */
export const REPEATABLE_MIGRATIONS = ["0006_credit_policy", "0011_key_policies_sql"] as const;

export type RepeatableMigrationId = (typeof REPEATABLE_MIGRATIONS)[number];

export const MIGRATION_ORDER: readonly string[] = [
  "0001_init",
  "0002_accounts",
  "0003_metering",
  "0004_upstream",
  "0005_usage",
  "0007_batches",
  "0008_sessions",
  "0009_privacy",
  "0010_key_policies",
  "0012_console_lookups",
  "0013_batches_bulk",
  "0014_refusal_aggregates",
  "0015_usage_channel",
  "0016_refill_payer",
  "0017_canonical_subjects",
  "0018_batch_key_owner",
  "0019_cache_kinds",
  "0020_workspaces",
  "0021_active_workspace",
  "0022_pool_refills",
  "0023_workspace_deletion",
  "0024_service_instances",
  "0025_user_origin",
  "0026_handover_attribution",
  // The usable_keys view and set-based settle/void/sweep, replacing 0003's functions. They read
  // the columns of every migration above (0020's pools among them), so they are applied after
  // them: a database that recorded 0006 in its first place applies it again here, as its text
  // changed.
  "0006_credit_policy",
  // The refill and threshold functions read columns of 0010 and 0016, so they are applied after
  // both. The id is the one they were first recorded under: a database migrated before 0016
  // existed knows it, and applies it again because its text changed. A new migration whose
  // columns these functions read goes above this line.
  "0011_key_policies_sql",
];
