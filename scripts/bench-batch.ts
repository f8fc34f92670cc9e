import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { signInWithPassword } from "@/lib/cli/console-session";
import { parseCliOptions } from "@/lib/cli/options";
import { freePort, groupRssKiB } from "@/lib/cli/processes";
import { openDb } from "@/lib/database";
import { generateEvents } from "@/lib/demo/events";
import { eventDetailsId } from "@/lib/operations/event-details-id";
import { publicationsOperation } from "@/lib/operations/publications/descriptor";
import { benchServerEnv, killGroupNow, machineSummary, sleep, spawnLogged, stopGroup, tail } from "./bench-lib";

/**
 * `npm run bench:batch`: batches through a production server (`scripts/start.ts`, embedded
 * database) in its default configuration (no concurrency set: the runner sizes it), created with
 * an API key under /v1/batches and timed from the creating POST to done, in three cases:
 *
 * - upstream: a stand-in provider in this script answering every event after 500 ms, the key at
 *   50/s, 200 event ids — how much of the key's budget the runner uses (target ≥ 0.85);
 * - slow: the same provider answering after 2 s, the key at 20/s, 400 event ids (twenty of the
 *   key's seconds, so that the last lookups' 2 s weigh as in a real batch) — target ≥ 0.8;
 * - store: N imported profiles (default 3,000), first page of publications each, the key at
 *   1,000/s — inputs/s (target ≥ 600), with the server's resident memory.
 *
 * Each prints inputs/s and the share of the key's budget (lookups ÷ (limit × seconds)), then
 * checks the credits and the usage rows exactly (read from the database once the server stopped).
 */
const USAGE = "usage: npm run bench:batch -- [--inputs N] [--case upstream|slow|store|all] [--keep]";
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const PUBLICATIONS_PER_PROFILE = 3;
const STORE_QPS = 1000;
/** The provider cases: its latency, the key's limit, the inputs and the least share of the budget expected. */
const PROVIDER_CASES = {
  upstream: { delayMs: 500, qpsLimit: 50, inputs: 200, target: 0.85 },
  slow: { delayMs: 2000, qpsLimit: 20, inputs: 400, target: 0.8 },
} as const;
const STORE_TARGET_INPUTS_PER_S = 600;

const values = parseCliOptions(USAGE, {
  inputs: { type: "string", default: "3000" },
  case: { type: "string", default: "all" },
  keep: { type: "boolean", default: false },
});
const inputs = Number(values.inputs);
if (!Number.isInteger(inputs) || inputs < 1 || inputs > 100_000 || !["upstream", "slow", "store", "all"].includes(values.case)) {
  console.error(USAGE);
  process.exit(2);
}

const urnOf = (index: number) => `urn:li:member:bench${String(index).padStart(6, "0")}`;
const eventIdOf = (index: number) => String(7_000_000_000_000_000 + index);

const runTsx = (args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<number> =>
  new Promise((resolve) => {
    const child = spawnLogged(process.execPath, [TSX_CLI, ...args], { cwd: ROOT, env, logFile });
    child.on("exit", (code) => resolve(code ?? 1));
  });

/** The provider's API for one operation, answering every event id after `delayMs`. */
const startStandInProvider = async (publicUrl: string, delayMs: number) => {
  const [template] = generateEvents(publicUrl);
  if (!template) throw new Error("no demo event to copy");
  let calls = 0;
  const server = http.createServer((request, response) => {
    calls += 1;
    const url = new URL(request.url ?? "/", "http://provider");
    const eventId = url.searchParams.get("event_id") ?? "";
    setTimeout(() => {
      const body = JSON.stringify({ code: 0, message: "success", data: { event: { ...template, event_id: eventId, related_events: [] } }, requestId: crypto.randomUUID() });
      response.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
      response.end(body);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls: () => calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

type Case = {
  name: string;
  operation: string;
  costCredits: number;
  qpsLimit: number;
  inputs: string[];
  env: Record<string, string>;
  /** Runs before the server starts (an import). */
  prepare?: (env: NodeJS.ProcessEnv, logFile: string) => Promise<void>;
  /** Rows the CSV results must have. */
  csvRows: number;
  /** What the case must reach, in the key's budget share or in inputs per second. */
  target: { budgetShare: number } | { inputsPerS: number };
};

const runCase = async (spec: Case) => {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-batch-"));
  const logFile = path.join(runDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = { email: "bench-batch@example.test", password: crypto.randomBytes(18).toString("base64url") };
  const dataDir = path.join(runDir, "data");
  const env = benchServerEnv({
    port,
    dataDir,
    admin,
    extra: {
      BATCH_MAX_INPUTS: String(Math.max(10_000, spec.inputs.length)),
      ...spec.env,
    },
  });
  await spec.prepare?.(env, logFile);

  const server = spawnLogged(process.execPath, [TSX_CLI, "scripts/start.ts"], { cwd: ROOT, env, logFile });
  const groupId = server.pid;
  if (groupId === undefined) throw new Error("could not start the server");
  const onExit = () => killGroupNow(groupId);
  process.on("exit", onExit);
  let keyId = "";
  let result: { elapsedS: number; done: number; creditsSpent: number; status: string; csvRows: number; rss: number[] };
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
    const call = async <T>(method: string, route: string, auth: Record<string, string>, body?: unknown): Promise<T> => {
      const response = await fetch(`${baseUrl}${route}`, {
        method,
        headers: { ...auth, "Content-Type": "application/json", Accept: "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    };
    const key = await call<{ key: { id: string }; token: string }>("POST", "/api/keys", { Cookie: cookie }, {
      name: `bench batch ${spec.name}`,
      credits: spec.inputs.length * spec.costCredits * 2,
      qpsLimit: spec.qpsLimit,
      useForConsole: true,
    });
    keyId = key.key.id;
    const bearer = { Authorization: `Bearer ${key.token}` };
    await call("GET", "/v1/batches", bearer);
    await sleep(2000);
    const rssBefore = groupRssKiB(groupId) / 1024;

    const started = performance.now();
    const created = await call<{ data: { id: string } }>("POST", "/v1/batches", bearer, { operation: spec.operation, inputs: spec.inputs });
    let peak = rssBefore;
    type View = { status: string; done: number; creditsSpent: number };
    let view: View;
    for (;;) {
      // Polled through the console (the owner's session): a /v1 poll would take a slot of the key's budget.
      view = await call<View>("GET", `/api/batches/${created.data.id}`, { Cookie: cookie });
      peak = Math.max(peak, groupRssKiB(groupId) / 1024);
      if (view.status !== "running" && view.status !== "queued") break;
      await sleep(50);
    }
    const elapsedS = (performance.now() - started) / 1000;
    const csv = await fetch(`${baseUrl}/v1/batches/${created.data.id}/results?format=csv`, { headers: bearer }).then((response) => response.text());
    result = {
      elapsedS,
      done: view.done,
      creditsSpent: view.creditsSpent,
      status: view.status,
      csvRows: csv.trimEnd().split("\r\n").length - 1,
      rss: [rssBefore, peak, groupRssKiB(groupId) / 1024],
    };
  } finally {
    await stopGroup(server, 15_000);
    process.off("exit", onExit);
  }

  // Exact ledger, read from the embedded database now that the server let go of it.
  const db = await openDb({ dataDir, timeoutMs: 10_000 });
  let usage: { status: number; n: number; credits: number }[];
  try {
    usage = (
      await db.query<{ status: number; n: string; credits: string }>(
        "SELECT status, count(*)::text AS n, COALESCE(sum(credits_charged), 0)::text AS credits FROM usage_events WHERE key_id = $1 GROUP BY status ORDER BY status",
        [keyId],
      )
    ).map((row) => ({ status: row.status, n: Number(row.n), credits: Number(row.credits) }));
  } finally {
    await db.close();
    if (values.keep) console.log(`  kept ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  }

  const total = spec.inputs.length;
  const inputsPerS = result.done / result.elapsedS;
  const budgetShare = inputsPerS / spec.qpsLimit;
  const met = "budgetShare" in spec.target ? budgetShare >= spec.target.budgetShare : inputsPerS >= spec.target.inputsPerS;
  const goal = "budgetShare" in spec.target ? `≥ ${spec.target.budgetShare} of the budget` : `≥ ${spec.target.inputsPerS} inputs/s`;
  console.log(`  [${spec.name}] ${total.toLocaleString("en-US")} × ${spec.operation}, key ${spec.qpsLimit}/s, default configuration`);
  console.log(
    `  [${spec.name}] ${result.status} after ${result.elapsedS.toFixed(2)} s from the POST: ${inputsPerS.toFixed(1)} inputs/s, ` +
      `${budgetShare.toFixed(2)} of the key's budget (target ${goal}: ${met ? "met" : "MISSED"})`,
  );
  console.log(`  [${spec.name}] credits ${result.creditsSpent}; usage rows ${usage.map((row) => `${row.n}×${row.status}`).join(", ") || "none"}; CSV ${result.csvRows} rows`);
  console.log(`  [${spec.name}] server RSS: ${result.rss.map((mib) => `${mib.toFixed(0)} MiB`).join(" before, ")} after (before, peak, after)`);
  const charged = usage.find((row) => row.status === 200);
  const refusals = usage.filter((row) => row.status !== 200);
  if (
    result.status !== "done" ||
    result.done !== total ||
    result.creditsSpent !== total * spec.costCredits ||
    charged?.n !== total ||
    charged.credits !== total * spec.costCredits ||
    refusals.length > 0 ||
    result.csvRows !== spec.csvRows
  ) {
    throw new Error(`[${spec.name}] the batch did not look every input up exactly once (or met a refusal): ${JSON.stringify({ result, usage })}`);
  }
};

const main = async () => {
  console.log(machineSummary());
  for (const name of ["upstream", "slow"] as const) {
    if (values.case !== "all" && values.case !== name) continue;
    const provided = PROVIDER_CASES[name];
    const provider = await startStandInProvider("http://127.0.0.1", provided.delayMs);
    try {
      await runCase({
        name,
        operation: eventDetailsId.id,
        costCredits: eventDetailsId.costCredits,
        qpsLimit: provided.qpsLimit,
        inputs: Array.from({ length: provided.inputs }, (_, index) => eventIdOf(index + 1)),
        env: { DATA_SOURCE: "upstream", UPSTREAM_BASE_URL: provider.url, UPSTREAM_API_KEY: "bench-provider-key" },
        csvRows: provided.inputs,
        target: { budgetShare: provided.target },
      });
      console.log(`  [${name}] provider at ${provided.delayMs} ms, calls: ${provider.calls()}`);
    } finally {
      await provider.close();
    }
  }
  if (values.case === "all" || values.case === "store") {
    await runCase({
      name: "store",
      operation: publicationsOperation.id,
      costCredits: publicationsOperation.costCredits,
      qpsLimit: STORE_QPS,
      inputs: Array.from({ length: inputs }, (_, index) => urnOf(index + 1)),
      env: {},
      csvRows: inputs * PUBLICATIONS_PER_PROFILE,
      target: { inputsPerS: STORE_TARGET_INPUTS_PER_S },
      prepare: async (env, logFile) => {
        // The profiles, imported the way an operator fills the store (npm run import).
        const seedFile = path.join(path.dirname(logFile), "profiles.ndjson");
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
        const started = performance.now();
        if ((await runTsx(["scripts/import.ts", seedFile], env, logFile)) !== 0) throw new Error(`import failed:\n${tail(logFile, 20)}`);
        console.log(`  [store] imported ${inputs.toLocaleString("en-US")} profiles in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      },
    });
  }
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
