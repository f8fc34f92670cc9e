import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { signInWithPassword } from "@/lib/cli/console-session";
import { parseCliOptions } from "@/lib/cli/options";
import { freePort } from "@/lib/cli/processes";
import { openDb } from "@/lib/database";
import { demoFixtures } from "@/lib/demo/fixtures";
import { parseEnv } from "@/lib/env";
import { followersOperation } from "@/lib/operations/followers/descriptor";
import {
  benchServerEnv,
  databaseThreadCounters,
  describeStatuses,
  isolationTarget,
  killGroupNow,
  loadAverage,
  machineSummary,
  percentile,
  sleep,
  spawnLogged,
  startLoad,
  statusCounts,
  stopGroup,
  tail,
  threadActivity,
  type ThreadActivity,
} from "./bench-lib";

/**
 * `npm run bench:isolation` (no user's load stalls another's: docs/decisions.md "Isolation",
 * docs/performance.md "Isolation"), on the embedded database through a production server
 * (`scripts/start.ts`) with the service's default settings. Another user's key polls
 * `GET /v1/account` every 20 ms while one analyst does, phase by phase, what they may:
 * at rest; as many usage exports of --rows rows as the server lets stream at once
 * (EXPORT_CONCURRENCY, restarted as each ends); creating batches of the largest size, up to the
 * open-batch limit; lookups at their key's per-second limit; all three at once ("mixed"); and a
 * flood of refused requests on a 0-credit 1/s key (with the request-log entries it leaves).
 * Each phase prints the others' p50/p90/p99/max, the embedded database's statements and export
 * pages in that time, and `others_p99_ms=… others_max_ms=… target p99≤100 max≤500: met|not met`;
 * the last line is the verdict. The load average is printed with every phase: on a shared machine
 * the figures say more about the machine than about the server.
 */
const USAGE =
  "usage: npm run bench:isolation -- [--rows N] [--seconds S] [--export-concurrency N] [--batches N] [--lookup-qps N] [--flood N] [--keep]";
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const PROBE_EVERY_MS = 20;
/** The highest per-second limit a key may be given (POST /api/keys). */
const KEY_MAX_QPS = 1000;

const values = parseCliOptions(USAGE, {
  rows: { type: "string", default: "25000" },
  seconds: { type: "string", default: "20" },
  "export-concurrency": { type: "string", default: "" },
  batches: { type: "string", default: "" },
  "lookup-qps": { type: "string", default: String(KEY_MAX_QPS) },
  flood: { type: "string", default: "20000" },
  keep: { type: "boolean", default: false },
});
const count = (name: keyof typeof values, min: number, max: number, fallback?: number): number => {
  const raw = values[name];
  if (raw === "" && fallback !== undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return value;
};
const options = {
  rows: count("rows", 1, 1_000_000),
  phaseMs: count("seconds", 1, 60) * 1000,
  /** Unset: the service's default (the server is started without the variable). */
  exportConcurrency: values["export-concurrency"] === "" ? null : count("export-concurrency", 1, 100),
  lookupQps: count("lookup-qps", 0, KEY_MAX_QPS),
  flood: count("flood", 0, 1_000_000),
};

const directorySize = (dir: string): number => {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? directorySize(full) : fs.statSync(full).size;
  }
  return total;
};

type Probed = { samples: number[]; failures: number };
type Phase = { name: string; met: boolean };

const describeThread = (figures: ThreadActivity): string =>
  `db thread: ${figures.statements.toLocaleString("en-US")} statements, mean ${figures.statementMeanMs.toFixed(1)} ms, ` +
  `${figures.statementsOver100Ms} over 100 ms; ${figures.pages.toLocaleString("en-US")} export pages, ` +
  `mean ${figures.pageMeanMs.toFixed(1)} ms (${figures.pagesWaited} waited for others, ${figures.pageWaitMs.toFixed(0)} ms in all); ` +
  `serving thread's event-loop delay p99 ${figures.eventLoopP99Ms.toFixed(1)} ms, max ${figures.eventLoopMaxMs.toFixed(1)} ms`;

const main = async () => {
  console.log(machineSummary());
  console.log(loadAverage());
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-isolation-"));
  const dataDir = path.join(runDir, "data");
  const logFile = path.join(runDir, "server.log");
  const port = await freePort();
  const metricsPort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = { email: "bench-isolation@example.test", password: crypto.randomBytes(18).toString("base64url") };
  const heavy = { email: "bench-heavy@example.test", password: crypto.randomBytes(18).toString("base64url") };
  const env = benchServerEnv({
    port,
    dataDir,
    admin,
    extra: {
      METRICS_PORT: String(metricsPort),
      ...(options.exportConcurrency === null ? {} : { EXPORT_CONCURRENCY: String(options.exportConcurrency) }),
    },
  });
  // What the server will run with: the service's defaults, apart from the variables above.
  const settings = parseEnv(env);
  const batches = count("batches", 0, 200, settings.BATCH_MAX_OPEN_PER_USER);
  const batchInputs = settings.BATCH_MAX_INPUTS;
  console.log(
    `settings: EXPORT_CONCURRENCY=${settings.EXPORT_CONCURRENCY}${options.exportConcurrency === null ? " (default)" : " (set by --export-concurrency)"}, ` +
      `BATCH_MAX_INPUTS=${batchInputs}, BATCH_MAX_OPEN_PER_USER=${settings.BATCH_MAX_OPEN_PER_USER}; ${(options.phaseMs / 1000).toFixed(0)} s a phase`,
  );

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
    const session = async (who: { email: string; password: string }) => {
      const signIn = await signInWithPassword(baseUrl, who, "/usage");
      if (signIn.session === null) throw new Error(`signing in as ${who.email} failed (status ${signIn.status})`);
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
      return { cookie, api };
    };
    const { api: asAdmin } = await session(admin);
    await asAdmin("POST", "/api/admin/users", { email: heavy.email, name: "Bench heavy user", role: "analyst", password: heavy.password, creditAllowance: 1_000_000_000 });
    const { api: asHeavy, cookie: heavyCookie } = await session(heavy);
    type Issued = { key: { id: string }; token: string };
    const newKey = async (as: typeof asAdmin, name: string, credits: number, qpsLimit: number, useForConsole = false) =>
      (await as<Issued>("POST", "/api/keys", { name, credits, qpsLimit, useForConsole })).body;
    // The other user: the admin's key, probed throughout.
    const probeKey = await newKey(asAdmin, "bench probe", 1_000_000, KEY_MAX_QPS);
    // The heavy user's keys: lookups at their limit (and the exported rows), the console's (batches), a 0-credit one.
    const lookupKey = await newKey(asHeavy, "heavy lookups", 100_000_000, Math.max(1, options.lookupQps));
    await newKey(asHeavy, "heavy console", 300_000_000, KEY_MAX_QPS, true);
    const floodKey = await newKey(asHeavy, "heavy flood", 0, 1);

    // The exported rows, written straight into the database (the server stopped: one process at a time).
    await stop();
    const db = await openDb({ dataDir, timeoutMs: 120_000 });
    try {
      await db.query(
        `INSERT INTO usage_events (request_id, key_id, operation, status, credits_charged, latency_ms, params_summary, created_at)
         SELECT gen_random_uuid(), $1, 'followers', 200, 2, 4, 'userid=' || g, now() - make_interval(secs => g)
         FROM generate_series(1, $2::integer) AS g`,
        [lookupKey.key.id, options.rows],
      );
    } finally {
      await db.close();
    }
    await start();
    const threadCounters = () => databaseThreadCounters(`http://127.0.0.1:${metricsPort}/metrics`);

    /** /v1/account of the other user's key every PROBE_EVERY_MS (not one after the other: a slow answer does not delay the next probe). */
    const probe = (until: Promise<unknown>): Promise<Probed> => {
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

    const phases: Phase[] = [];
    /** Probes while `work` runs; prints the phase's lines, what `work` says of itself last. */
    const phase = async (name: string, label: string, work: () => Promise<string>) => {
      const before = await threadCounters();
      const running = work();
      const probed = await probe(running);
      const detail = await running;
      const after = await threadCounters();
      const thread = before === null || after === null ? null : threadActivity(after, before);
      const sorted = [...probed.samples].sort((a, b) => a - b);
      const p99 = percentile(sorted, 99);
      const max = sorted.at(-1) ?? NaN;
      const target = isolationTarget(p99, max);
      const ms = (value: number) => `${value.toFixed(1)} ms`;
      console.log(
        `  ${name}, ${label}: others' /v1/account p50 ${ms(percentile(sorted, 50))}, p90 ${ms(percentile(sorted, 90))}, p99 ${ms(p99)}, max ${ms(max)} ` +
          `(${probed.samples.length} probes${probed.failures > 0 ? `, ${probed.failures} not 200` : ""}); ${loadAverage()}`,
      );
      console.log(`    others_p99_ms=${p99.toFixed(1)} others_max_ms=${max.toFixed(1)} ${target.line}`);
      if (detail !== "") console.log(`    ${detail}`);
      if (thread !== null) console.log(`    ${describeThread(thread)}`);
      phases.push({ name, met: target.met });
    };

    /** `slots` exports streaming until `untilMs` (performance.now()), each slot starting the next as one ends. */
    const keepExporting = async (slots: number, untilMs: number): Promise<string> => {
      const rowsSeen = new Set<number>();
      const refused = new Map<number, number>();
      let finished = 0;
      await Promise.all(
        Array.from({ length: slots }, async () => {
          while (performance.now() < untilMs) {
            const response = await fetch(`${baseUrl}/api/usage/export?kind=events`, { headers: { Cookie: heavyCookie } });
            const text = await response.text();
            if (response.status === 200) {
              finished += 1;
              rowsSeen.add(text.trimEnd().split("\r\n").length - 1);
            } else {
              refused.set(response.status, (refused.get(response.status) ?? 0) + 1);
              await sleep(1000);
            }
          }
        }),
      );
      return `${finished} exports (rows each: ${[...rowsSeen].join(", ") || "none"})${refused.size > 0 ? `, refused ${describeStatuses(refused)}` : ""}`;
    };

    const unknownEvent = (index: number) => `https://${demoFixtures.eventUrlHost}/events/${9_000_000_000_000_000 + index}/`;
    let batchSerial = 0;
    /** Up to `most` batches of the largest size, one after the other, until `untilMs`. */
    const createBatches = async (most: number, untilMs: number): Promise<string> => {
      let accepted = 0;
      const refused = new Map<number, number>();
      const began = performance.now();
      for (let made = 0; made < most && performance.now() < untilMs; made += 1) {
        batchSerial += 1;
        const inputs = Array.from({ length: batchInputs }, (_, index) => unknownEvent(batchSerial * batchInputs + index));
        const answer = await fetch(`${baseUrl}/api/batches`, {
          method: "POST",
          headers: { Cookie: heavyCookie, "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ operation: "event_details", inputs, maxCredits: 1_000_000 }),
        });
        await answer.arrayBuffer();
        if (answer.status === 201) accepted += 1;
        else refused.set(answer.status, (refused.get(answer.status) ?? 0) + 1);
      }
      return `${accepted} batch${accepted === 1 ? "" : "es"} of ${batchInputs.toLocaleString("en-US")} inputs created in ${((performance.now() - began) / 1000).toFixed(1)} s${refused.size > 0 ? `, refused ${describeStatuses(refused)}` : ""}`;
    };
    // Cancelled after each phase that makes them, so their runs do not load the next phase.
    const cancelBatches = async () => {
      const listed = await asHeavy<{ batches?: { id: string; status: string }[] }>("GET", "/api/batches");
      for (const batch of listed.body.batches ?? []) {
        if (batch.status === "queued" || batch.status === "running") await asHeavy("POST", `/api/batches/${batch.id}/cancel`).catch(() => undefined);
      }
    };

    /** Followers lookups of the heavy user's key at its per-second limit until `untilMs`. */
    const lookUpAtLimit = async (untilMs: number): Promise<string> => {
      const seconds = Math.max(1, Math.round((untilMs - performance.now()) / 1000));
      const load = startLoad({
        url: `${baseUrl}${followersOperation.path}?userid=2000000002`,
        connections: Math.min(50, options.lookupQps),
        overallRate: options.lookupQps,
        duration: seconds,
        headers: { Authorization: `Bearer ${lookupKey.token}` },
      });
      const result = await load.result;
      return `${result.requests.total.toLocaleString("en-US")} lookups at ${options.lookupQps}/s for ${seconds} s (${describeStatuses(statusCounts(result))}; their p99 ${result.latency.p99} ms)`;
    };
    const until = () => performance.now() + options.phaseMs;
    const slots = settings.EXPORT_CONCURRENCY;
    const rows = options.rows.toLocaleString("en-US");

    // Warm the routes, then a baseline at rest.
    await fetch(`${baseUrl}/api/usage/export?kind=events&to=2000-01-01`, { headers: { Cookie: heavyCookie } }).then((response) => response.text());
    await fetch(`${baseUrl}${followersOperation.path}?userid=2000000002`, { headers: { Authorization: `Bearer ${lookupKey.token}` } }).then((r) => r.text());
    await phase("rest", "nothing else running", async () => {
      await sleep(3000);
      return "";
    });
    await phase("exports", `${slots} at once (all the server lets stream) of ${rows} rows`, () => keepExporting(slots, until()));
    if (batches > 0) {
      await phase("batches", `up to ${batches} of ${batchInputs.toLocaleString("en-US")} inputs, one after the other`, () => createBatches(batches, until()));
      await cancelBatches();
    }
    if (options.lookupQps > 0) await phase("lookups", `their key at its limit, ${options.lookupQps}/s`, () => lookUpAtLimit(until()));
    await phase("mixed", `${slots} exports + a batch of ${batchInputs.toLocaleString("en-US")} inputs${options.lookupQps > 0 ? ` + lookups at ${options.lookupQps}/s` : ""}, at once`, async () => {
      const end = until();
      const parts = await Promise.all([
        keepExporting(slots, end),
        createBatches(1, end),
        options.lookupQps > 0 ? lookUpAtLimit(end) : Promise.resolve("no lookups"),
      ]);
      return parts.join("; ");
    });
    await cancelBatches();
    if (options.flood > 0) {
      const sizeBefore = directorySize(dataDir);
      let entries = 0;
      await phase("flood", `${options.flood.toLocaleString("en-US")} requests on a 0-credit 1/s key, 64 connections`, async () => {
        const load = startLoad({
          url: `${baseUrl}${followersOperation.path}?userid=2000000002`,
          connections: 64,
          duration: 60,
          amount: options.flood,
          headers: { Authorization: `Bearer ${floodKey.token}` },
        });
        const flood = await load.result;
        return `answers: ${describeStatuses(statusCounts(flood))} in ${flood.duration.toFixed(1)} s`;
      });
      await sleep(2000);
      let cursor: string | null = null;
      do {
        const query: string = `/api/usage/events?keyId=${floodKey.key.id}&limit=200&from=2000-01-01${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page: { body: { events: unknown[]; nextCursor: string | null } } = await asHeavy("GET", query);
        entries += page.body.events.length;
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      const growthMiB = (directorySize(dataDir) - sizeBefore) / 1024 / 1024;
      console.log(`    the flood left ${entries.toLocaleString("en-US")} request-log entries (target ≤ 1,000), database +${growthMiB.toFixed(1)} MiB`);
    }
    const missed = phases.filter((each) => !each.met).map((each) => each.name);
    console.log(
      missed.length === 0
        ? `verdict: others' p99 ≤ 100 ms and max ≤ 500 ms met in all ${phases.length} phases; ${loadAverage()}`
        : `verdict: others' p99 ≤ 100 ms and max ≤ 500 ms not met in ${missed.length} of ${phases.length} phases (${missed.join(", ")}); ${loadAverage()}`,
    );
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
