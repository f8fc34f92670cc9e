import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { signInWithPassword } from "@/lib/cli/console-session";
import { parseCliOptions } from "@/lib/cli/options";
import { freePort, groupRssKiB } from "@/lib/cli/processes";
import { publicationsOperation } from "@/lib/operations/publications/descriptor";
import { benchServerEnv, killGroupNow, machineSummary, sleep, spawnLogged, stopGroup, tail } from "./bench-lib";

/**
 * `npm run bench:batch`: a batch of N publications lookups (default 10,000 distinct profiles,
 * first page each) on the embedded database, through a production server (`scripts/start.ts`)
 * and the console API, with the console key's per-second limit set high (1000). Prints inputs/s
 * and the server's resident memory (all processes of its group) before, at the peak and after:
 * the runner reads a page of work at a time, so memory should stay flat however long the batch.
 */
const USAGE = "usage: npm run bench:batch -- [--inputs N] [--keep]";
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const PUBLICATIONS_PER_PROFILE = 3;
const QPS_LIMIT = 1000;

const values = parseCliOptions(USAGE, { inputs: { type: "string", default: "10000" }, keep: { type: "boolean", default: false } });
const inputs = Number(values.inputs);
if (!Number.isInteger(inputs) || inputs < 1 || inputs > 100_000) {
  console.error(USAGE);
  process.exit(2);
}

const urnOf = (index: number) => `urn:li:member:bench${String(index).padStart(6, "0")}`;


/** Resident memory of every process in the group, in MiB. */
const groupRssMiB = (groupId: number): number => groupRssKiB(groupId) / 1024;

const runTsx = (args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<number> =>
  new Promise((resolve) => {
    const child = spawnLogged(process.execPath, [TSX_CLI, ...args], { cwd: ROOT, env, logFile });
    child.on("exit", (code) => resolve(code ?? 1));
  });

const main = async () => {
  console.log(machineSummary());
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-batch-"));
  const logFile = path.join(runDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = { email: "bench-batch@example.test", password: crypto.randomBytes(18).toString("base64url") };
  const env = benchServerEnv({ port, dataDir: path.join(runDir, "data"), admin, extra: { BATCH_MAX_INPUTS: String(Math.max(10_000, inputs)) } });

  // The profiles, imported the way an operator fills the store (npm run import).
  const seedFile = path.join(runDir, "profiles.ndjson");
  const lines: string[] = [];
  for (let index = 1; index <= inputs; index += 1) {
    const publications = Array.from({ length: PUBLICATIONS_PER_PROFILE }, (_, entry) => ({
      title: `Paper ${entry + 1} of profile ${index}`,
      publication: "Bench Journal",
      description: "A publication written for the batch benchmark.\nSecond line.",
      date: "Jan 5, 2024",
      publication_url: `https://journal.example/p/${index}/${entry + 1}`,
    }));
    lines.push(JSON.stringify({ urn: urnOf(index), publications }));
  }
  fs.writeFileSync(seedFile, `${lines.join("\n")}\n`);
  let started = performance.now();
  if ((await runTsx(["scripts/import.ts", seedFile], env, logFile)) !== 0) throw new Error(`import failed:\n${tail(logFile, 20)}`);
  console.log(`  imported ${inputs.toLocaleString("en-US")} profiles in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const server = spawnLogged(process.execPath, [TSX_CLI, "scripts/start.ts"], { cwd: ROOT, env, logFile });
  const groupId = server.pid;
  if (groupId === undefined) throw new Error("could not start the server");
  const onExit = () => killGroupNow(groupId);
  process.on("exit", onExit);
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const healthy = await fetch(`${baseUrl}/api/health`).then((response) => response.ok, () => false);
      if (healthy) break;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${tail(logFile, 30)}`);
      await sleep(500);
    }
    const signIn = await signInWithPassword(baseUrl, admin, "/batches");
    if (signIn.session === null) throw new Error(`signing in as ${admin.email} failed (status ${signIn.status})`);
    const cookie = signIn.session;
    const api = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${baseUrl}${route}`, {
        method,
        headers: { Cookie: cookie, "Content-Type": "application/json", Accept: "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    };
    await api("POST", "/api/keys", { name: "bench batch", credits: inputs * 2, qpsLimit: QPS_LIMIT, useForConsole: true });
    // Warm the pages and routes the run uses, then measure the server at rest.
    await api("GET", "/api/batches");
    await sleep(2000);
    const rssBefore = groupRssMiB(groupId);

    started = performance.now();
    const created = await api<{ id: string; total: number }>("POST", "/api/batches", {
      operation: publicationsOperation.id,
      inputs: Array.from({ length: inputs }, (_, index) => urnOf(index + 1)),
      maxCredits: inputs,
    });
    const createdMs = performance.now() - started;
    let peak = rssBefore;
    type View = { status: string; done: number; succeeded: number; creditsSpent: number };
    let view: View;
    for (;;) {
      view = await api<View>("GET", `/api/batches/${created.id}`);
      peak = Math.max(peak, groupRssMiB(groupId));
      if (view.status !== "running" && view.status !== "queued") break;
      await sleep(500);
    }
    const elapsedS = (performance.now() - started) / 1000;
    const csvStarted = performance.now();
    const csv = await fetch(`${baseUrl}/api/batches/${created.id}/results?format=csv`, { headers: { Cookie: cookie } }).then((response) => response.text());
    const csvMs = performance.now() - csvStarted;
    await sleep(1000);
    const rssAfter = groupRssMiB(groupId);
    const csvRows = csv.trimEnd().split("\r\n").length - 1;

    console.log(`  batch of ${created.total.toLocaleString("en-US")} publications lookups (first page), key limit ${QPS_LIMIT}/s`);
    console.log(`  created in ${createdMs.toFixed(0)} ms; ${view.status} after ${elapsedS.toFixed(1)} s: ${(view.done / elapsedS).toFixed(0)} inputs/s`);
    console.log(`  done ${view.done}, succeeded ${view.succeeded}, credits ${view.creditsSpent}`);
    console.log(`  results CSV: ${csvRows.toLocaleString("en-US")} rows in ${csvMs.toFixed(0)} ms`);
    console.log(`  server RSS: ${rssBefore.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak, ${rssAfter.toFixed(0)} MiB after`);
    if (view.status !== "done" || view.succeeded !== inputs || view.creditsSpent !== inputs || csvRows !== inputs * PUBLICATIONS_PER_PROFILE) {
      throw new Error("the batch did not look every profile up exactly once");
    }
  } finally {
    await stopGroup(server, 15_000);
    process.off("exit", onExit);
    if (values.keep) console.log(`  kept ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
