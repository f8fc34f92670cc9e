import fs from "node:fs";
import path from "node:path";

/**
 * PGlite keeps its files in one folder and two processes writing it corrupt it, so the process
 * that opens it holds a lock file with its pid. A lock left by a process that is gone is taken over.
 */
export class DatabaseLockedError extends Error {
  constructor(readonly lockPath: string, readonly holderPid: number) {
    super(
      `The embedded database at ${path.dirname(lockPath)} is in use by process ${holderPid} ` +
        `(probably the running server). Stop that process first, or point DATABASE_URL at PostgreSQL ` +
        `to share one database between processes.`,
    );
  }
}

/** Where the embedded database in DATA_DIR keeps its lock. */
export const pgliteLockPath = (dataDir: string): string => path.join(dataDir, "pglite.lock");

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * The live process other than this one that holds the lock, or null (no lock, or a stale one).
 * An operator CLI asks this to know whether a running server has the database (lib/cli/operator).
 */
export const liveHolder = (lockPath: string): number | null => {
  let text: string;
  try {
    text = fs.readFileSync(lockPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const holderPid = Number.parseInt(text, 10);
  return Number.isInteger(holderPid) && holderPid !== process.pid && isAlive(holderPid) ? holderPid : null;
};

/**
 * Refuses, before anything in DATA_DIR is touched, when another live process holds the database:
 * a command that is going to be refused anyway must not change the running server's folder first.
 */
export const assertNotLocked = (lockPath: string): void => {
  const holderPid = liveHolder(lockPath);
  if (holderPid !== null) throw new DatabaseLockedError(lockPath, holderPid);
};

export const acquireLock = (lockPath: string): (() => void) => {
  // Owner-only from the start when the lock is the first thing in a new DATA_DIR.
  fs.mkdirSync(path.dirname(lockPath), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: "wx", mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (fs.readFileSync(lockPath, "utf8") === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      assertNotLocked(lockPath);
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not take the database lock at ${lockPath}`);
};
