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

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

export const acquireLock = (lockPath: string): (() => void) => {
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
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
      const holderPid = Number.parseInt(fs.readFileSync(lockPath, "utf8"), 10);
      if (Number.isInteger(holderPid) && holderPid !== process.pid && isAlive(holderPid)) {
        throw new DatabaseLockedError(lockPath, holderPid);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not take the database lock at ${lockPath}`);
};
