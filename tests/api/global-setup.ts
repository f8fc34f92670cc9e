import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildIsCurrent } from "@/lib/cli/build";
import { demoRecordTexts, scanServerLog } from "@/tests/support/log-scan";
import { copyTemplate, makeMigratedTemplate } from "@/tests/support/pglite-template";
import {
  API_DATABASES,
  EVENT_SITE_HOST,
  RESULTS_DIR,
  ROOT,
  findPostgres,
  freePort,
  isUnavailable,
  issuePlannedKeys,
  killServerNow,
  randomSecret,
  startServer,
  stopServer,
  waitForForeignBuild,
  type ApiTarget,
  type IssuedKey,
  type KeyName,
  type PostgresAdmin,
  type TargetKind,
} from "./harness";

/**
 * Starts the production server once per target before the API suite and stops it after:
 * "pglite" (embedded database in a fresh temp DATA_DIR) and "postgres" (a fresh schema on
 * 127.0.0.1:5432, when PostgreSQL is reachable), or only the one API_DATABASES names. Keys are
 * issued with the key CLI before the servers start (the embedded database admits one process at
 * a time). The teardown fails the
 * run when a server log holds a secret of the run (a token or its signature, a password,
 * AUTH_SECRET, a Bearer value) or a personal record's text, or a line that is not a JSON log line
 * (tests/support/log-scan.ts).
 */
type PostgresCleanup = { admin: PostgresAdmin; kind: "schema" | "database"; name: string };

const log = (message: string) => console.log(`[api-suite] ${message}`);

const newTarget = async (kind: TargetKind, runId: string, extraEnv: Record<string, string>, template: string | null): Promise<ApiTarget> => {
  const port = await freePort();
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `sl-api-${kind}-`));
  const dataDir = path.join(runDir, "data");
  if (kind === "pglite") copyTemplate(template, dataDir);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const logFile = path.join(RESULTS_DIR, `server-${kind}.log`);
  fs.writeFileSync(logFile, `# ${kind} server log of API test run ${runId}\n`);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    kind,
    baseUrl,
    port,
    publicUrl: baseUrl,
    runDir,
    dataDir,
    stateFile: path.join(runDir, "server.json"),
    logFile,
    env: {
      NODE_ENV: "production",
      PORT: String(port),
      DATA_DIR: dataDir,
      AUTH_SECRET: randomSecret(48),
      PUBLIC_URL: baseUrl,
      EVENTSITE_HOSTS: EVENT_SITE_HOST,
      DATA_SOURCE: "store",
      // The suite plays the load balancer of the documented deployment: tests name a client
      // address by appending it to X-Forwarded-For (tests/api/front-config.test.ts starts its
      // own servers for the default, 0: the socket peer).
      TRUSTED_PROXY_HOPS: "1",
      // batches.test.ts kills a server mid-batch: its successor takes the batch over within 3 s.
      BATCH_LEASE_MS: "3000",
      // v1-batches.test.ts receives batch.finished webhooks on a listener of its own at this address.
      WEBHOOK_ALLOWED_NETWORKS: "127.0.0.9/32",
      // A configured admin: start.ts would otherwise print a generated password into the log.
      ADMIN_EMAIL: "api-suite@example.test",
      ADMIN_PASSWORD: randomSecret(24),
      // metrics.test.ts scrapes GET /metrics on the main port and on a listener of its own.
      METRICS_TOKEN: randomSecret(32),
      METRICS_PORT: String(await freePort()),
      // What a log collector reads; the teardown checks every line of it.
      LOG_FORMAT: "json",
      ...extraEnv,
    },
    databaseUrl: extraEnv.DATABASE_URL ?? null,
    // Filled in once the CLI has issued them.
    keys: {} as Record<KeyName, IssuedKey>,
  };
};

/** A fresh schema (search_path through the URL's `options`), or a fresh database if pg ignores it. */
const preparePostgres = async (
  admin: PostgresAdmin,
  runId: string,
): Promise<{ databaseUrl: string; cleanup: PostgresCleanup }> => {
  const name = `sl_test_${runId}`;
  const client = await admin.connect();
  try {
    await client.query(`CREATE SCHEMA ${name}`);
  } finally {
    await client.end();
  }
  const schemaUrl =
    `postgresql://${encodeURIComponent(admin.user)}@127.0.0.1:5432/test` +
    `?options=${encodeURIComponent(`-c search_path=${name}`)}`;
  const probe = new (await import("pg")).default.Client({ connectionString: schemaUrl });
  await probe.connect();
  let honoured = false;
  try {
    const rows = (await probe.query<{ search_path: string }>("SHOW search_path")).rows;
    honoured = rows[0]?.search_path === name;
  } finally {
    await probe.end();
  }
  if (honoured) return { databaseUrl: schemaUrl, cleanup: { admin, kind: "schema", name } };

  log(`pg ignored options=-c search_path in the URL; using a fresh database ${name} instead`);
  const dropper = await admin.connect();
  try {
    await dropper.query(`DROP SCHEMA ${name} CASCADE`);
    await dropper.query(`CREATE DATABASE ${name}`);
  } finally {
    await dropper.end();
  }
  return {
    databaseUrl: `postgresql://${encodeURIComponent(admin.user)}@127.0.0.1:5432/${name}`,
    cleanup: { admin, kind: "database", name },
  };
};

const dropPostgres = async (cleanup: PostgresCleanup): Promise<void> => {
  const client = await cleanup.admin.connect();
  try {
    if (cleanup.kind === "schema") await client.query(`DROP SCHEMA IF EXISTS ${cleanup.name} CASCADE`);
    else await client.query(`DROP DATABASE IF EXISTS ${cleanup.name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
};

/** Secrets issued for the run, by label: every key's token (and its signature), AUTH_SECRET, the admin password. */
const runSecrets = (targets: ApiTarget[]): [string, string][] =>
  targets.flatMap((target): [string, string][] => [
    ...Object.values(target.keys).flatMap((key): [string, string][] => [
      [`token of ${target.kind} key ${key.name}`, key.token],
      [`token signature of ${target.kind} key ${key.name}`, key.token.split(".")[2] ?? key.token],
    ]),
    [`AUTH_SECRET of ${target.kind}`, target.env.AUTH_SECRET ?? ""],
    [`ADMIN_PASSWORD of ${target.kind}`, target.env.ADMIN_PASSWORD ?? ""],
    [`METRICS_TOKEN of ${target.kind}`, target.env.METRICS_TOKEN ?? ""],
  ]);

/** What is wrong with the target's server log: secrets of the run, record text, lines that are not the log's. */
const logProblems = (target: ApiTarget, secrets: [string, string][]): string[] => {
  if (!fs.existsSync(target.logFile)) return [];
  const text = fs.readFileSync(target.logFile, "utf8");
  return scanServerLog(text, { secrets, recordTexts: demoRecordTexts(target.publicUrl), expectRequestLines: true }).problems;
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomSecret(10).toLowerCase().replace(/[^a-z0-9]/g, "x");
  const targets: ApiTarget[] = [];
  const skipped: string[] = [];
  const cleanups: PostgresCleanup[] = [];
  const templateRoots: string[] = [];
  let template: string | null = null;

  const teardown = async () => {
    process.off("exit", killAll);
    await Promise.all(targets.map((target) => stopServer(target).catch(() => undefined)));
    for (const cleanup of cleanups) {
      await dropPostgres(cleanup).catch((error: unknown) => log(`could not drop ${cleanup.name}: ${String(error)}`));
    }
    const secrets = runSecrets(targets);
    const leaks = targets.flatMap((target) =>
      logProblems(target, secrets).map((problem) => `${problem} (${path.relative(process.cwd(), target.logFile)})`),
    );
    for (const target of targets) fs.rmSync(target.runDir, { recursive: true, force: true });
    for (const root of templateRoots) fs.rmSync(root, { recursive: true, force: true });
    if (leaks.length > 0) {
      const message = `SECURITY: a server log fails the log scan: ${leaks.join("; ")}`;
      console.error(`\n[api-suite] ${message}\n`);
      // Vitest reports an error thrown here but still exits 0: the exit code must say it too.
      process.exitCode = 1;
      throw new Error(message);
    }
  };
  const killAll = () => targets.forEach(killServerNow);
  process.on("exit", killAll);

  try {
    // npm test covers the embedded database (API_DATABASES=pglite), npm run test:proofs PostgreSQL
    // (API_DATABASES=postgres, which fails when it is unreachable); unset, both.
    // The embedded database's servers (this one, and those test files start) begin from a migrated template.
    if (API_DATABASES.includes("pglite")) {
      const templateRoot = fs.mkdtempSync(path.join(os.tmpdir(), "sl-api-template-"));
      templateRoots.push(templateRoot);
      template = await makeMigratedTemplate(templateRoot);
      targets.push(await newTarget("pglite", runId, {}, template));
    }
    const postgres = API_DATABASES.includes("postgres")
      ? await findPostgres()
      : { unavailable: "API_DATABASES=pglite (this run covers the embedded database only)" };
    if (isUnavailable(postgres) && process.env.API_DATABASES === "postgres") {
      throw new Error(`API_DATABASES=postgres, but PostgreSQL is unreachable: ${postgres.unavailable}`);
    }
    if (isUnavailable(postgres)) {
      const reason = `SKIPPED: PostgreSQL API suite — ${postgres.unavailable}`;
      console.log(`\n[api-suite] ${reason}\n`);
      skipped.push(reason);
    } else {
      const { databaseUrl, cleanup } = await preparePostgres(postgres, runId);
      cleanups.push(cleanup);
      targets.push(await newTarget("postgres", runId, { DATABASE_URL: databaseUrl }, null));
    }

    const keysStartedAt = Date.now();
    await Promise.all(
      targets.map(async (target) => {
        // The embedded database admits one process at a time: one CLI call after another.
        target.keys = await issuePlannedKeys(target, target.kind === "postgres");
      }),
    );
    log(`issued ${Object.keys(targets[0]?.keys ?? {}).length} keys per target in ${Date.now() - keysStartedAt} ms`);

    await waitForForeignBuild();
    // One after the other: the first start may build, and two builds must never share `.next`.
    // Should sources change meanwhile, later targets serve the build the first one got (start.ts
    // would rebuild, replacing `.next` under the running server and testing other code).
    for (const [index, target] of targets.entries()) {
      const startedAt = Date.now();
      const mode = index === 0 || buildIsCurrent(ROOT) ? "start-script" : "prepare-and-next-start";
      if (mode !== "start-script") log(`sources changed during the build: ${target.kind} serves the same build without rebuilding`);
      await startServer(target, mode);
      log(`${target.kind} server healthy at ${target.baseUrl} after ${Date.now() - startedAt} ms (log: ${target.logFile})`);
    }
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }

  project.provide("apiTargets", targets);
  project.provide("pgliteTemplate", template ?? "");
  project.provide("apiSkipped", skipped);
  return teardown;
}
