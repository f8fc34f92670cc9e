/**
 * How a key is named for people in lists where several people's keys meet (usage, a team's
 * keys). The console makes a key named "Console" for each member of a team workspace who runs
 * lookups there (lib/keys/workspace-console.ts); side by side they would all read "Console", so
 * such a key carries its maker: "Console — ana@example.com". Any other key is its own name.
 */
export const CONSOLE_KEY_NAME = "Console";

export const keyLabel = (name: string, makerEmail: string | null | undefined): string =>
  name === CONSOLE_KEY_NAME && makerEmail ? `${name} — ${makerEmail}` : name;

/** The same rule in SQL, for queries that name keys themselves: `name` and `email` are column expressions. */
export const keyLabelSql = (name: string, email: string): string =>
  `CASE WHEN ${name} = '${CONSOLE_KEY_NAME}' AND ${email} IS NOT NULL THEN ${name} || ' — ' || ${email} ELSE ${name} END`;
