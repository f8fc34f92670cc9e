import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { signInWithPassword } from "@/lib/cli/console-session";
import { parseCliOptions } from "@/lib/cli/options";
import { freePort } from "@/lib/cli/processes";
import { openDb } from "@/lib/database";
import { demoFixtures } from "@/lib/demo/fixtures";
import { followersOperation } from "@/lib/operations/followers/descriptor";
import { benchServerEnv, describeStatuses, killGroupNow, machineSummary, sleep, spawnLogged, startLoad, statusCounts, stopGroup, tail } from "./bench-lib";

/**
 * `npm run bench:isolation` (no request stalls another: docs/decisions.md "Isolation"), on the
 * embedded database through a production server (`scripts/start.ts`): another key's
 * `GET /v1/account` latency (p50/p90/max, one probe every 20 ms) at rest, while 8 usage exports of
 * 25,000 rows are read at once (EXPORT_CONCURRENCY=8 here, so all eight stream together: the worst
 * case), and while 30 batches of 10,000 inputs are created; then a 20,000-request flood with a
 * 0-credit 1/s key and the request-log entries and database growth it leaves. Targets: p90 ≤ 150 ms
 * and max ≤ 1 s during the exports, p90 ≤ 150 ms during the batch creation, ≤ 1,000 log entries.
 */
const USAGE = "usage: npm run bench:isolation -- [--rows N] [--exports N] [--batches N] [--batch-inputs N] [--flood N] [--keep]";
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const PROBE_EVERY_MS = 20;

const values = parseCliOptions(USAGE, {
  rows: { type: "string", default: "25000" },
  exports: { type: "string", default: "8" },
  batches: { type: "string", default: "30" },
  "batch-inputs": { type: "string", default: "10000" },
  flood: { type: "string", default: "20000" },
  keep: { type: "boolean", default: false },
});
const count = (name: keyof typeof values, max: number): number => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    console.error(`--${name} must be a whole number from 0 to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return value;
};
const options = {
  rows: count("rows", 1_000_000),
  exports: count("exports", 64),
  batches: count("batches", 200),
  batchInputs: count("batch-inputs", 100_000),
  flood: count("flood", 1_000_000),
};

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const latencyLine = (label: string, samples: number[], failures: number): string => {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  return `  ${label}: /v1/account p50 ${f(percentile(sorted, 50))}, p90 ${f(percentile(sorted, 90))}, max ${f(sorted.at(-1) ?? NaN)} (${samples.length} probes${failures > 0 ? `, ${failures} not 200` : ""})`;
};

const directorySize = (dir: string): number => {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? directorySize(full) : fs.statSync(full).size;
  }
  return total;
};

const main = async () => {
  console.log(machineSummary());
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-isolation-"));
  const dataDir = path.join(runDir, "data");
  const logFile = path.join(runDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = { email: "bench-isolation@example.test", password: crypto.randomBytes(18).toString("base64url") };
  const env = benchServerEnv({
    port,
    dataDir,
    admin,
    extra: { EXPORT_CONCURRENCY: String(Math.max(1, options.exports)), BATCH_MAX_INPUTS: String(Math.max(10_000, options.batchInputs)) },
  });


  let server: ReturnType<typeof spawnLogged> | null = null;
  const onExit = () => {
    if (server?.pid !== undefined) killGroupNow(server.pid);
  };
  process.on("exit", onExit);
  const start = async () => {
    server = spawnLogged(process.execPath, [TSX_CLI, "scripts/start.ts"], { cwd: ROOT, env, logFile });
    const deadline = Date.now() + 600_000;
    for (;;) {
      if (await fetch(`${baseUrl}/api/health`).then((response) => response.ok, () => false)) return;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${tail(logFile, 30)}`);
      await sleep(500);
    }
  };
  const stop = async () => {
    if (server) await stopGroup(server, 15_000);
    server = null;
  };

  try {
    await start();
    const signIn = await signInWithPassword(baseUrl, admin, "/usage");
    if (signIn.session === null) throw new Error(`signing in as ${admin.email} failed (status ${signIn.status})`);
    const cookie = signIn.session;
    const api = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> => {
      const response = await fetch(`${baseUrl}${route}`, {
        method,
        headers: { Cookie: cookie, "Content-Type": "application/json", Accept: "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok && response.status !== 429) throw new Error(`${method} ${route} answered ${response.status}: ${text.slice(0, 300)}`);
      return { status: response.status, body: JSON.parse(text) as T };
    };
    type Issued = { key: { id: string }; token: string };
    const newKey = async (name: string, credits: number, qpsLimit: number, useForConsole = false) =>
      (await api<Issued>("POST", "/api/keys", { name, credits, qpsLimit, useForConsole })).body;
    const exporterKey = await newKey("bench exporter", 1000, 100);
    const probeKey = await newKey("bench probe", 1_000_000, 1000);
    await newKey("bench batches", 100_000_000, 1000, true);
    const floodKey = await newKey("bench flood", 0, 1);

    // The exported rows, written straight into the database (the server stopped: one process at a time).
    await stop();
    const db = await openDb({ dataDir, timeoutMs: 120_000 });
    try {
      await db.query(
        `INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at)
         SELECT gen_random_uuid(), $1, 'followers', 200, 2, 4, 'userid=' || g, now() - make_interval(secs => g)
         FROM generate_series(1, $2::integer) AS g`,
        [exporterKey.key.id, options.rows],
      );
    } finally {
      await db.close();
    }
    await start();

    /** /v1/account of the probe key every PROBE_EVERY_MS (not one after the other: a slow answer does not delay the next probe). */
    const probe = (until: Promise<unknown>) => {
      const samples: number[] = [];
      let failures = 0;
      let done = false;
      void until.finally(() => (done = true));
      const probes: Promise<void>[] = [];
      const run = (async () => {
        while (!done) {
          probes.push(
            (async () => {
              const began = performance.now();
              const response = await fetch(`${baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${probeKey.token}` } });
              await response.arrayBuffer();
              samples.push(performance.now() - began);
              if (response.status !== 200) failures += 1;
            })(),
          );
          await sleep(PROBE_EVERY_MS);
        }
        await Promise.all(probes);
      })();
      return run.then(() => ({ samples, failures }));
    };

    // Warm the routes, then a baseline at rest.
    await fetch(`${baseUrl}/api/usage/export?kind=events&to=2000-01-01`, { headers: { Cookie: cookie } }).then((response) => response.text());
    const rest = await probe(sleep(3000));
    console.log(latencyLine("at rest", rest.samples, rest.failures));

    if (options.exports > 0) {
      const started = performance.now();
      const exports = Promise.all(
        Array.from({ length: options.exports }, async () => {
          const response = await fetch(`${baseUrl}/api/usage/export?kind=events`, { headers: { Cookie: cookie } });
          const text = await response.text();
          return response.status === 200 ? text.trimEnd().split("\r\n").length - 1 : -response.status;
        }),
      );
      const duringExports = await probe(exports);
      const exported = await exports;
      console.log(latencyLine(`${options.exports} exports of ${options.rows.toLocaleString("en-US")} rows`, duringExports.samples, duringExports.failures));
      console.log(`    exports took ${((performance.now() - started) / 1000).toFixed(1)} s; rows per export: ${[...new Set(exported)].join(", ")}`);
    }
    if (options.batches > 0) {
      const unknownEvent = (index: number) => `https://${demoFixtures.eventUrlHost}/events/${9_000_000_000_000_000 + index}/`;
      const started = performance.now();
      let accepted = 0;
      const refused = new Map<number, number>();
      const creating = (async () => {
        for (let batch = 0; batch < options.batches; batch += 1) {
          const inputs = Array.from({ length: options.batchInputs }, (_, index) => unknownEvent(batch * options.batchInputs + index + 1));
          const answer = await fetch(`${baseUrl}/api/batches`, {
            method: "POST",
            headers: { Cookie: cookie, "Content-Type": "application/json", Accept: "application/json" },
            body: JSON.stringify({ operation: "event_details", inputs, maxCredits: 1_000_000 }),
          });
          await answer.arrayBuffer();
          if (answer.status === 201) accepted += 1;
          else refused.set(answer.status, (refused.get(answer.status) ?? 0) + 1);
        }
      })();
      const duringBatches = await probe(creating);
      console.log(
        latencyLine(`creating ${options.batches} batches of ${options.batchInputs.toLocaleString("en-US")} inputs`, duringBatches.samples, duringBatches.failures),
      );
      console.log(
        `    ${accepted} accepted${refused.size > 0 ? `, refused ${describeStatuses(refused)}` : ""} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );

      // Cancel the batches so their runs do not load the flood.
      const listed = await api<{ batches?: { id: string; status: string }[] }>("GET", "/api/batches");
      for (const batch of listed.body.batches ?? []) {
        if (batch.status === "queued" || batch.status === "running") await api("POST", `/api/batches/${batch.id}/cancel`).catch(() => undefined);
      }

    }
    if (options.flood > 0) {
      const sizeBefore = directorySize(dataDir);
      const load = startLoad({
        url: `${baseUrl}${followersOperation.path}?userid=2000000002`,
        connections: 64,
        duration: 600,
        amount: options.flood,
        headers: { Authorization: `Bearer ${floodKey.token}` },
      });
      const flood = await load.result;
      await sleep(2000);
      let entries = 0;
      let cursor: string | null = null;
      do {
        const query: string = `/api/usage/events?keyId=${floodKey.key.id}&limit=200&from=2000-01-01${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page: { body: { events: unknown[]; nextCursor: string | null } } = await api("GET", query);
        entries += page.body.events.length;
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      const growthMiB = (directorySize(dataDir) - sizeBefore) / 1024 / 1024;
      console.log(
        `  flood of ${options.flood.toLocaleString("en-US")} requests on a 0-credit 1/s key (${describeStatuses(statusCounts(flood))}): ` +
          `${entries.toLocaleString("en-US")} request-log entries, database +${growthMiB.toFixed(1)} MiB`,
      );
    }
  } finally {
    await stop();
    process.off("exit", onExit);
    if (values.keep) console.log(`  kept ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
