import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { env, EnvError } from "@/lib/env";
import { openDb } from "@/lib/database";
import { DataDirError, secureDataDir } from "@/lib/db/data-dir";
import { assertNotLocked, DatabaseLockedError, pgliteLockPath } from "@/lib/db/lock";
import { EXIT } from "@/lib/cli/open";
import { grantDemoKey, seedIfEmpty } from "@/lib/demo/seed";
import type { ApiKey } from "@/lib/keys/repository";
import { ensureBuild, nextProcessEnv } from "@/lib/cli/build";
import { checkNodeLine, nodeCacheDir } from "@/lib/cli/node-line";
import { signInHint } from "@/lib/cli/sign-in-hint";
import { authSecret } from "@/lib/security/secrets";
import { bootstrapAdmin, type BootstrapResult } from "@/lib/users/bootstrap";
import { serverArgs } from "./server-process";

/**
 * `npm start`: build when there is no current build, migrate, load the demo data into an empty
 * database, then serve (server.ts, on HOST:PORT) and say where. The database is closed before the server opens it
 * (PGlite allows one process at a time).
 *
 * Its own words for a person (the data notices, the banner with the URL and how to sign in) go
 * to stderr: stdout carries the server's log lines alone (JSON when collected), and a generated
 * password is printed only when stderr is a terminal (lib/cli/sign-in-hint.ts), never into a
 * captured stream. (The Node.js line check's notices stay on stdout: they come before anything.)
 */
const root = process.cwd();

const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

const prepare = async () => {
  const config = env();
  // A running server holds the embedded database: refuse before touching its folder or its build.
  if (config.DATABASE_URL === undefined) assertNotLocked(pgliteLockPath(config.dataDir));
  const secured = secureDataDir(config.dataDir);
  if (secured.tightened.length > 0) say(`Made DATA_DIR ${secured.dataDir} owner-only (it was readable by other users).`);
  authSecret();
  ensureBuild(root);
  const db = await openDb({ dataDir: config.dataDir, databaseUrl: config.DATABASE_URL, timeoutMs: config.DB_TIMEOUT_MS });
  let admin: BootstrapResult;
  let demoKey: ApiKey | null;
  try {
    const seeded = await seedIfEmpty(db, config.publicUrl);
    if (seeded) say("Loaded the demo data set into the empty database.");
    admin = await bootstrapAdmin(db, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD, dataDir: config.dataDir });
    demoKey = await grantDemoKey(db, authSecret(), { seeded, dataSource: config.DATA_SOURCE, admin });
  } finally {
    await db.close();
  }
  return { config, admin, demoKey };
};

/** Where this machine reaches the server: the bound address, or loopback when bound to all interfaces. */
const localHost = (host: string): string => {
  if (host === "0.0.0.0" || host.toLowerCase() === "localhost") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
};

const waitUntilHealthy = async (url: string, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
};

/** Runs a child in the foreground: it gets this terminal and our signals; its exit is ours. */
const foreground = (command: string, args: string[], childEnv: NodeJS.ProcessEnv) => {
  const child = spawn(command, args, { stdio: "inherit", env: childEnv });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return child;
};

const isExecutable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** On a node older than the lowest line README names: this script again on that line, or a clear error. */
const onSupportedNode = (): boolean => {
  const engines = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
  const line = checkNodeLine({
    version: process.versions.node,
    engines,
    cacheDir: nodeCacheDir(env(), os.homedir()),
    platform: process.platform,
    arch: process.arch,
    isExecutable,
  });
  if (line.ok) return true;
  let node: string;
  if (line.relaunchWith !== null) {
    console.log(line.notice);
    node = line.relaunchWith;
  } else {
    if (line.fetch === null) throw new Error(line.message);
    console.log(line.fetch.notice);
    // The npm on PATH: the one `npm start` was run with.
    const fetched = spawnSync("npm", line.fetch.npmArgs, { stdio: ["ignore", "ignore", "inherit"], env: process.env });
    if (fetched.status !== 0 || !isExecutable(line.fetch.node)) {
      const why = fetched.error ? fetched.error.message : `npm exited with ${fetched.status ?? fetched.signal ?? "?"}`;
      throw new Error(`fetching Node.js ${line.lowestMajor} failed (${why}).\n${line.message}`);
    }
    node = line.fetch.node;
  }
  // Under tsx, execArgv carries its loader: the same script on the other node, same arguments.
  foreground(node, [...process.execArgv, ...process.argv.slice(1)], process.env);
  return false;
};

/** `npm start -- --check-node`: the Node.js line check (and fetch) alone; prints the node it ends up on. */
const CHECK_NODE_ONLY = process.argv.slice(2).includes("--check-node");

const main = async () => {
  if (!onSupportedNode()) return;
  if (CHECK_NODE_ONLY) {
    console.log(`Running on Node.js ${process.versions.node} (${process.execPath}).`);
    return;
  }
  const { config, admin, demoKey } = await prepare();
  // The process front (server.ts): /v1 on its own, everything else through Next.
  foreground(process.execPath, serverArgs(root), { ...nextProcessEnv(process.env), NODE_ENV: "production" });
  if (await waitUntilHealthy(`http://${localHost(config.HOST)}:${config.PORT}/api/health`, 60_000)) {
    say(`\nSocial Lookup is ready at ${config.publicUrl}`);
    say(`  Console: ${config.publicUrl}/signin`);
    say(signInHint(admin, { showPassword: process.stderr.isTTY === true }));
    if (demoKey) say(`  The console uses "${demoKey.name}" (${demoKey.creditsRemaining.toLocaleString("en-US")} demo credits): every lookup page works at once.`);
    say(`  API reference: ${config.publicUrl}/api-docs   OpenAPI: ${config.publicUrl}/v1/openapi.json`);
    say(`  Issue an API key: npm run --silent keys -- create --name NAME --credits 1000 (works while the server runs)`);
  }
};

main().catch((error: unknown) => {
  if (error instanceof EnvError || error instanceof DatabaseLockedError || error instanceof DataDirError) console.error(`error: ${error.message}`);
  else console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  // The same code as every other command-line tool refused by a running server.
  process.exit(error instanceof DatabaseLockedError ? EXIT.databaseLocked : EXIT.failed);
});
