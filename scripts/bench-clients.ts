import { execFile, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { SocialLookup } from "@social-lookup/client";
import { parseCliOptions } from "@/lib/cli/options";
import { ensureClientBuild } from "@/lib/cli/client-build";
import { benchServerEnv, freePort, killGroupNow, machineSummary, sleep, spawnLogged, stopGroup, tail, waitForOtherBuilds } from "./bench-lib";

/**
 * `npm run bench:clients`: what the clients cost over the bare HTTP loop a script would write.
 * Against a production server (`scripts/start.ts`, embedded database, demo data), it walks
 * 2000000001's 10,000 followers (400 pages) through the TypeScript SDK
 * (`client.followers.iterate`) and through a bare `fetch` loop over the same pages, then the same
 * through the Python client and a bare `urllib` loop (scripts/bench-clients.py), each pair in
 * alternating order, after one warm-up walk of each. Each round pairs two walks made one after
 * the other, under the same load: `ratio=` is the median of the rounds' client ÷ bare wall times
 * (target ≤ 1.1 for both); the ratio of the fastest walks and the client process's CPU per page
 * (what the client itself adds, whatever the machine's other load) are printed beside it. A
 * figure, never a test.
 */
const USAGE = "usage: npm run bench:clients -- [--rounds N] [--keep]";
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const TSX_CLI = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const USERID = "2000000001";
const FOLLOWERS = 10_000;
const TARGET_RATIO = 1.1;
const run = promisify(execFile);

const values = parseCliOptions(USAGE, { rounds: { type: "string", default: "7" }, keep: { type: "boolean", default: false } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) {
  console.error(USAGE);
  process.exit(2);
}

const median = (numbers: readonly number[]): number => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/** One walk: wall seconds, and CPU milliseconds of the client's own process. */
type Walk = { wallS: number; cpuMs: number };
type Round = { client: Walk; bare: Walk };

const PAGES = 400;

const report = (label: string, bareLabel: string, measured: readonly Round[]) => {
  for (const [index, { client, bare }] of measured.entries()) {
    console.log(
      `  round ${index + 1}: ${label} ${client.wallS.toFixed(2)} s (cpu ${client.cpuMs.toFixed(0)} ms), ` +
        `${bareLabel} ${bare.wallS.toFixed(2)} s (cpu ${bare.cpuMs.toFixed(0)} ms), ratio ${(client.wallS / bare.wallS).toFixed(3)}`,
    );
  }
  const ratio = median(measured.map(({ client, bare }) => client.wallS / bare.wallS));
  const fastest = Math.min(...measured.map(({ client }) => client.wallS)) / Math.min(...measured.map(({ bare }) => bare.wallS));
  const cpuPerPage = (pick: (round: Round) => Walk) => (median(measured.map((round) => pick(round).cpuMs)) / PAGES).toFixed(2);
  console.log(
    `${label} vs ${bareLabel}, ${FOLLOWERS.toLocaleString("en-US")} followers (${PAGES} pages): ratio=${ratio.toFixed(3)} (median of paired rounds; target ≤ ${TARGET_RATIO}: ` +
      `${ratio <= TARGET_RATIO ? "ok" : "ABOVE TARGET"}), fastest_ratio=${fastest.toFixed(3)}, client cpu ${cpuPerPage((round) => round.client)} ms/page vs ${cpuPerPage((round) => round.bare)} ms/page`,
  );
  return ratio;
};

const sdkWalk = async (client: SocialLookup): Promise<number> => {
  let count = 0;
  for await (const _follower of client.followers.iterate({ userid: USERID })) count += 1;
  return count;
};

type FollowersData = { followers: unknown[]; node_id: string; page_info: { has_next_page: boolean; end_cursor: string | null } };

const bareWalk = async (baseUrl: string, token: string): Promise<number> => {
  let query = new URLSearchParams({ userid: USERID });
  let count = 0;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/pinsite/followers?${query.toString()}`, { headers: { Authorization: `Bearer ${token}` } });
    const { data } = (await response.json()) as { data: FollowersData };
    count += data.followers.length;
    if (!data.page_info.has_next_page || data.page_info.end_cursor === null) return count;
    query = new URLSearchParams({ node_id: data.node_id, cursor: data.page_info.end_cursor });
  }
};

const timed = async (walk: () => Promise<number>): Promise<Walk> => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const count = await walk();
  const wallS = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (count !== FOLLOWERS) throw new Error(`a walk saw ${count} followers, not ${FOLLOWERS}`);
  return { wallS, cpuMs: (used.user + used.system) / 1000 };
};

const main = async () => {
  console.log(machineSummary());
  if (ensureClientBuild(ROOT) === "built") console.log("built the TypeScript SDK");
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-bench-clients-"));
  const logFile = path.join(runDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = benchServerEnv({
    port,
    dataDir: path.join(runDir, "data"),
    admin: { email: "bench-clients@example.test", password: crypto.randomBytes(18).toString("base64url") },
    extra: {},
  });
  // The key before the server: the embedded database admits one process at a time.
  const created = spawnSync(process.execPath, [TSX_CLI, "scripts/keys.ts", "create", "--name", "bench-clients", "--credits", "100000000", "--qps", "100000", "--json"], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr.trim()}`);
  const key = JSON.parse(created.stdout.trim().split("\n").at(-1) ?? "{}") as { token: string };

  await waitForOtherBuilds();
  const server = spawnLogged(process.execPath, [TSX_CLI, "scripts/start.ts"], { cwd: ROOT, env, logFile });
  const groupId = server.pid;
  if (groupId === undefined) throw new Error("could not start the server");
  const onExit = () => killGroupNow(groupId);
  process.on("exit", onExit);
  try {
    const deadline = Date.now() + 900_000;
    while (!(await fetch(`${baseUrl}/api/health`).then((response) => response.ok, () => false))) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${tail(logFile, 30)}`);
      await sleep(500);
    }
    console.log(`server: ${baseUrl}; ${rounds} rounds after one warm-up walk of each, order alternating\n`);

    const client = new SocialLookup({ apiKey: key.token, baseUrl });
    await timed(() => sdkWalk(client));
    await timed(() => bareWalk(baseUrl, key.token));
    const typescript: Round[] = [];
    for (let index = 0; index < rounds; index += 1) {
      const round: Partial<Round> = {};
      const order = index % 2 === 0 ? (["client", "bare"] as const) : (["bare", "client"] as const);
      for (const which of order) round[which] = await timed(which === "client" ? () => sdkWalk(client) : () => bareWalk(baseUrl, key.token));
      if (round.client === undefined || round.bare === undefined) throw new Error("a round lacks a walk");
      typescript.push({ client: round.client, bare: round.bare });
    }
    report("TypeScript SDK", "bare fetch", typescript);

    const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
    if (python.status !== 0) console.log("\nPython client: SKIPPED — python3 is not on PATH");
    else {
      console.log(`\n${python.stdout.trim()}`);
      const { stdout } = await run("python3", [path.join(ROOT, "scripts", "bench-clients.py"), String(rounds)], {
        cwd: ROOT,
        env: { ...process.env, PYTHONPATH: path.join(ROOT, "clients", "python"), SOCIAL_LOOKUP_BASE_URL: baseUrl, SOCIAL_LOOKUP_API_KEY: key.token },
        maxBuffer: 1024 * 1024,
      });
      report("Python client", "bare urllib", JSON.parse(stdout) as Round[]);
    }
  } finally {
    await stopGroup(server, 15_000);
    process.off("exit", onExit);
    if (values.keep) console.log(`\nkept ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
