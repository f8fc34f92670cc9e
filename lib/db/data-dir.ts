import fs from "node:fs";
import path from "node:path";

/**
 * DATA_DIR holds the embedded database, the generated AUTH_SECRET and the first admin's
 * password: nobody but the server's own user may read any of it. PGlite writes its table files
 * mode 0666 whatever the umask (its file system layer sets modes itself), so the directory is
 * what keeps them private: DATA_DIR is made 0700, an existing one with group/other access is
 * tightened (it and everything in it), and a directory this user may not tighten is refused —
 * as is a shared folder such as /tmp (sticky bit), whose contents are other users' and stay so.
 *
 * Loose files inside an owner-only directory (PGlite's, at every start) are tightened too, but
 * nobody else could reach them: only what another user could really open is reported.
 */
export class DataDirError extends Error {}

const LOOSE = 0o077;
const STICKY = 0o1000;

/** `tightened`: the entries another user could open before (their every folder up to DATA_DIR was open too). */
export type DataDirState = { dataDir: string; tightened: string[] };

const ownUid = (): number | null => (typeof process.getuid === "function" ? process.getuid() : null);

const isLoose = (stat: fs.Stats): boolean => (stat.mode & LOOSE) !== 0 && !stat.isSymbolicLink();

/** Makes `entry` owner-only; reports it when others could reach it (`reachable`: its folders were open). */
const tighten = (entry: string, stat: fs.Stats, reachable: boolean, tightened: string[]) => {
  if (!isLoose(stat)) return;
  fs.chmodSync(entry, stat.mode & 0o700);
  if (reachable) tightened.push(entry);
};

const walk = (directory: string, reachable: boolean, tightened: string[]) => {
  for (const name of fs.readdirSync(directory)) {
    const entry = path.join(directory, name);
    const stat = fs.lstatSync(entry);
    tighten(entry, stat, reachable, tightened);
    if (stat.isDirectory()) walk(entry, reachable && isLoose(stat), tightened);
  }
};

const setOwnerOnlyUmask = () => {
  try {
    // Files this process creates itself (secret, password file, lock) start owner-only.
    process.umask(0o077);
  } catch {
    // Worker threads may not change the umask; the directory mode still protects the files.
  }
};

export const secureDataDir = (dataDir: string): DataDirState => {
  setOwnerOnlyUmask();
  const resolved = path.resolve(dataDir);
  fs.mkdirSync(resolved, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(resolved);
  if (!stat.isDirectory()) throw new DataDirError(`DATA_DIR ${resolved} is not a directory.`);
  if ((stat.mode & STICKY) !== 0) {
    // A shared folder (/tmp, /var/tmp): tightening it would take every other user's files with it.
    throw new DataDirError(
      `DATA_DIR ${resolved} is a shared folder (sticky bit set, mode ${(stat.mode & 0o7777).toString(8)}), whose contents belong to ` +
        `others. Give the server a folder of its own, e.g. DATA_DIR=${path.join(resolved, "social-lookup")}`,
    );
  }
  const uid = ownUid();
  if ((stat.mode & LOOSE) !== 0 && uid !== null && stat.uid !== uid) {
    throw new DataDirError(
      `DATA_DIR ${resolved} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}) and belongs to another user, ` +
        `so it cannot be made private here. Run the server as its owner, or make it owner-only: chmod 700 ${resolved}`,
    );
  }
  const tightened: string[] = [];
  try {
    tighten(resolved, stat, true, tightened);
    walk(resolved, isLoose(stat), tightened);
  } catch (error) {
    throw new DataDirError(
      `DATA_DIR ${resolved} can be read by other users and could not be made private ` +
        `(${error instanceof Error ? error.message : String(error)}). Make it owner-only: chmod -R go-rwx ${resolved}`,
    );
  }
  return { dataDir: resolved, tightened };
};
