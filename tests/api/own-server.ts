import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { seedFromTemplate } from "@/tests/support/databases";
import { demoRecordTexts, scanServerLog } from "@/tests/support/log-scan";
import { EVENT_SITE_HOST, RESULTS_DIR, freePort, randomSecret, startServer, stopServer, type ApiTarget, type IssuedKey, type KeyName, type TargetKind } from "./harness";

/**
 * A production server of a test file's own, for what the suite's shared servers cannot be started
 * with (limits, a data source, a listening address, a kill -9): its own port, folder and log
 * (test-results/api/server-<label>.log), the demo store and an administrator, then `env` on top.
 */
export type OwnServerOptions = {
  /** Names the folder, the log and the administrator (`<label>@example.test`). */
  label: string;
  /** On top of the defaults (and winning over them). */
  env?: Record<string, string>;
  /** Where the server listens and clients connect; 127.0.0.1 unless given (then also HOST). */
  host?: string;
  /** PUBLIC_URL: the server's own address unless given; null leaves PUBLIC_URL unset. */
  publicUrl?: string | null;
  /** PostgreSQL instead of the embedded database. */
  databaseUrl?: string;
  /** Runs before the server starts, while nothing holds the embedded database (keys made with the CLI). */
  beforeStart?: (target: ApiTarget) => Promise<void>;
};

export const startOwnServer = async (options: OwnServerOptions): Promise<ApiTarget> => {
  const port = await freePort();
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `sl-api-${options.label}-`));
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const host = options.host ?? "127.0.0.1";
  const baseUrl = `http://${host}:${port}`;
  const publicUrl = options.publicUrl === undefined ? baseUrl : options.publicUrl;
  const kind: TargetKind = options.databaseUrl === undefined ? "pglite" : "postgres";
  const target: ApiTarget = {
    kind,
    baseUrl,
    port,
    publicUrl: publicUrl ?? baseUrl,
    runDir,
    dataDir: path.join(runDir, "data"),
    stateFile: path.join(runDir, "server.json"),
    logFile: path.join(RESULTS_DIR, `server-${options.label}.log`),
    env: {
      NODE_ENV: "production",
      ...(options.host === undefined ? {} : { HOST: options.host }),
      PORT: String(port),
      DATA_DIR: path.join(runDir, "data"),
      AUTH_SECRET: randomSecret(48),
      ...(publicUrl === null ? {} : { PUBLIC_URL: publicUrl }),
      EVENTSITE_HOSTS: EVENT_SITE_HOST,
      DATA_SOURCE: "store",
      LOG_FORMAT: "json",
      ADMIN_EMAIL: `${options.label}@example.test`,
      ADMIN_PASSWORD: randomSecret(24),
      ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
      ...options.env,
    },
    databaseUrl: options.databaseUrl ?? null,
    keys: {} as Record<KeyName, IssuedKey>,
  };
  fs.writeFileSync(target.logFile, `# ${options.label} server log\n`);
  // The embedded database starts migrated (the run's template): the server's own migrate finds nothing to do.
  if (kind === "pglite") seedFromTemplate(target.dataDir);
  try {
    await options.beforeStart?.(target);
    await startServer(target, "prepare-and-next-start");
  } catch (error) {
    await stopServer(target).catch(() => undefined);
    fs.rmSync(runDir, { recursive: true, force: true });
    throw error;
  }
  return target;
};

/** The server's secrets by their variable's name: the secret, password, key and token settings (a provider key among them). */
const SECRET_VARIABLE = /SECRET|PASSWORD|API_KEY|TOKEN/;

/**
 * Stops the server and removes its folder (the log stays in test-results), then scans its log
 * like the suite's shared servers' (tests/support/log-scan.ts): a failure fails the test file.
 */
export const stopOwnServer = async (target: ApiTarget | undefined): Promise<void> => {
  if (target === undefined) return;
  await stopServer(target);
  fs.rmSync(target.runDir, { recursive: true, force: true });
  const secrets = Object.entries(target.env).filter(([name]) => SECRET_VARIABLE.test(name));
  const { problems } = scanServerLog(fs.readFileSync(target.logFile, "utf8"), { secrets, recordTexts: demoRecordTexts(target.publicUrl), expectRequestLines: false });
  if (problems.length > 0) throw new Error(`SECURITY: the log of ${path.relative(process.cwd(), target.logFile)} fails the log scan: ${problems.join("; ")}`);
};
