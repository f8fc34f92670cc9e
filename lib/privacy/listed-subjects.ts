/**
 * Reading the subject a list entry names (a follower entry's pin-board user), from the path the
 * kinds table declares (lib/records/kinds.ts `entries.subjects.path`): in SQL on a stored entry's
 * JSON record, and in JavaScript on an entry being imported or shown.
 */
const SAFE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

const checkedKey = (key: string): string => {
  // The path comes from the kinds table, never from input; refuse anything that is not a plain key.
  if (!SAFE_KEY.test(key)) throw new Error(`not a plain JSON key: ${key}`);
  return key;
};

/** `record->'node'->>'entityId'` for the path ["node", "entityId"], on the alias's record if given. */
export const entrySubjectSql = (path: readonly [string, ...string[]], alias?: string): string => {
  const keys = path.map(checkedKey);
  const last = keys.at(-1) ?? "";
  const steps = keys.slice(0, -1).map((key) => `->'${key}'`).join("");
  return `${alias === undefined ? "" : `${alias}.`}record${steps}->>'${last}'`;
};

/** The text at the path of an entry, or undefined when there is none. */
export const entrySubject = (entry: unknown, path: readonly string[]): string | undefined => {
  let value: unknown = entry;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === "string" ? value : undefined;
};
