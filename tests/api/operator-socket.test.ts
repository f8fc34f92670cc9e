import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "@/lib/cli/open";
import { operatorSocketPath, parseFrame, type Frame } from "@/lib/cli/operator/protocol";
import { openDb } from "@/lib/database";
import { generateDemoData } from "@/lib/demo/generate";
import { hashPassword } from "@/lib/users/passwords";
import { createUser } from "@/lib/users/repository";
import { consoleClient, type Session } from "./console-client";
import { embeddedInRun, randomSecret, ROOT, runTsx, stopServer, type ApiTarget, type CliResult } from "./harness";
import { startOwnServer, stopOwnServer } from "./own-server";

/**
 * Operator commands while the server runs on the embedded database (docs/operations.md
 * "Operator commands while the server runs"): the real CLIs, run against the DATA_DIR a real
 * production server holds, reach its database through DATA_DIR/operator.sock. The same commands
 * run offline before the server starts, so the two audit trails can be compared.
 */
const LEAD = { email: "lead@example.test", password: `pw ${randomSecret(20)}` };
const OPERATOR_ACTOR = "operator (workspaces CLI)";

const demo = generateDemoData("http://localhost:3000");
const eventLine = (index: number, eventId: string): string => {
  const event = demo.events[index];
  if (!event) throw new Error(`no demo event ${index}`);
  return `${JSON.stringify({ ...event, event_id: eventId, title: `Imported ${eventId}` })}\n`;
};
const OFFLINE_EVENT = "9300000000000001";
const ONLINE_EVENT = "9300000000000002";

let target: ApiTarget;
/** What the CLIs answered with no server running (beforeStart). */
const offline: Record<string, CliResult> = {};
let socketAfterOfflineRuns: boolean | null = null;

const cli = (script: string, args: readonly string[]): Promise<CliResult> => runTsx(target, [`scripts/${script}`, ...args]);

const socketPath = () => operatorSocketPath(target.dataDir);

/** Lines of the server's log that record an operator command it ran. */
const operatorLogLines = (): string[] =>
  fs
    .readFileSync(target.logFile, "utf8")
    .split("\n")
    .filter((line) => line.includes("(from the local socket)"));

/** One raw exchange on the socket: what is written, and every answer line until the server closes. */
const rawExchange = (payload: string): Promise<{ frames: (Frame | null)[]; closed: boolean }> =>
  new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath());
    let text = "";
    const guard = setTimeout(() => {
      socket.destroy();
      resolve({ frames: parsed(), closed: false });
    }, 15_000);
    const parsed = () => text.split("\n").filter((line) => line !== "").map(parseFrame);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(payload));
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(guard);
      resolve({ frames: parsed(), closed: true });
    });
  });

beforeAll(async () => {
  // The embedded database's own feature: the PostgreSQL lane has nothing of it to run.
  if (!embeddedInRun) return;
  target = await startOwnServer({
    label: "operator-socket",
    // Nothing holds the database yet: the CLIs open it themselves, as they always have.
    beforeStart: async (prepared) => {
      target = prepared;
      const db = await openDb({ dataDir: prepared.dataDir, timeoutMs: 10_000 });
      try {
        await createUser(db, { email: LEAD.email, name: "Lead", role: "analyst", passwordHash: await hashPassword(LEAD.password), creditAllowance: 0 });
      } finally {
        await db.close();
      }
      offline.seed = await cli("db.ts", ["seed"]);
      offline.team = await cli("workspaces.ts", ["create", "--name", "Research", "--owner", LEAD.email, "--json"]);
      const { id } = JSON.parse(offline.team.stdout || "{}") as { id?: string };
      offline.credits = await cli("workspaces.ts", ["credits", id ?? "", "250"]);
      offline.key = await cli("keys.ts", ["create", "--name", "offline", "--credits", "5", "--json"]);
      const file = path.join(prepared.runDir, "offline.ndjson");
      fs.writeFileSync(file, eventLine(0, OFFLINE_EVENT));
      offline.import = await cli("import.ts", [file]);
      socketAfterOfflineRuns = fs.existsSync(operatorSocketPath(prepared.dataDir));
      // What a server that did not stop cleanly leaves behind, loosened: the next server replaces it.
      fs.writeFileSync(operatorSocketPath(prepared.dataDir), "stale");
      fs.chmodSync(operatorSocketPath(prepared.dataDir), 0o666);
    },
  });
}, 240_000);

afterAll(async () => {
  await stopOwnServer(target);
});

describe.runIf(embeddedInRun)("operator commands on the embedded database", () => {
  it("with no server running, the CLIs open the database themselves and leave no socket", () => {
    expect(Object.fromEntries(Object.entries(offline).map(([name, result]) => [name, [result.code, result.stderr]]))).toEqual({
      seed: [EXIT.ok, ""],
      team: [EXIT.ok, ""],
      credits: [EXIT.ok, ""],
      key: [EXIT.ok, ""],
      import: [EXIT.ok, ""],
    });
    expect(socketAfterOfflineRuns).toBe(false);
  });

  it("the server replaces a stale socket file with its own socket, owner-only, in an owner-only DATA_DIR", () => {
    const stat = fs.lstatSync(socketPath());
    expect([stat.isSocket(), (stat.mode & 0o777).toString(8)]).toEqual([true, "600"]);
    expect((fs.statSync(target.dataDir).mode & 0o777).toString(8)).toBe("700");
  });

  describe("while the server runs, the CLIs' commands run in it", () => {
    let lead: Session;
    let teamId: string;
    let token: string;

    beforeAll(async () => {
      lead = await consoleClient(target).signIn(LEAD.email, LEAD.password);
    });

    it("workspaces create and credits: the pool is granted, as the console shows it", async () => {
      const before = operatorLogLines().length;
      const created = await cli("workspaces.ts", ["create", "--name", "Research", "--owner", LEAD.email, "--json"]);
      expect([created.code, created.stderr]).toEqual([EXIT.ok, ""]);
      teamId = (JSON.parse(created.stdout) as { id: string }).id;
      const granted = await cli("workspaces.ts", ["credits", teamId, "250"]);
      expect([granted.code, granted.stdout.trim()]).toEqual([EXIT.ok, `Added 250 credits to the pool of ${teamId}: 250 remaining of 250 granted.`]);
      const shown = await consoleClient(target).api(lead, "GET", `/api/workspaces/${teamId}`);
      expect(shown.status, shown.text).toBe(200);
      expect(shown.body).toMatchObject({ workspace: { id: teamId, name: "Research", poolCredits: 250, poolGranted: 250, role: "owner" } });
      // The server ran them (it holds the database; a CLI of its own could not have opened it).
      expect(operatorLogLines().slice(before).map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
        "operator command workspaces (from the local socket): exit 0",
        "operator command workspaces (from the local socket): exit 0",
      ]);
    }, 60_000);

    it("keys create: the new key answers on /v1 at once; import: the record is served at once", async () => {
      const created = await cli("keys.ts", ["create", "--name", "online", "--credits", "9", "--qps", "5", "--json"]);
      expect([created.code, created.stderr]).toEqual([EXIT.ok, ""]);
      token = (JSON.parse(created.stdout) as { token: string }).token;
      // A relative FILE is read where the operator stands (here the repository, tsx's cwd).
      const file = path.join(target.runDir, "online.ndjson");
      fs.writeFileSync(file, eventLine(1, ONLINE_EVENT));
      const imported = await cli("import.ts", [path.relative(ROOT, file)]);
      expect([imported.code, imported.stderr]).toEqual([EXIT.ok, ""]);
      expect(imported.stdout).toMatch(/^1 records in .*: 1 written, 0 unchanged, 0 bad values skipped/);

      const answer = await fetch(`${target.baseUrl}/v1/eventsite/event_details_id?event_id=${ONLINE_EVENT}`, { headers: { Authorization: `Bearer ${token}` } });
      const body = (await answer.json()) as { data?: { event?: { title?: string } } };
      expect([answer.status, body.data?.event?.title]).toEqual([200, `Imported ${ONLINE_EVENT}`]);
    }, 60_000);

    it("export streams the server's records back; keys list and db migrate answer as offline", async () => {
      const exported = await cli("export.ts", ["--kind", "events", "--source", "import"]);
      expect([exported.code, exported.stderr.trim()]).toEqual([EXIT.ok, "exported 2 events records"]);
      expect(exported.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { event_id: string }).event_id).sort()).toEqual([OFFLINE_EVENT, ONLINE_EVENT]);
      const listed = await cli("keys.ts", ["list", "--json"]);
      expect(listed.code).toBe(EXIT.ok);
      expect((JSON.parse(listed.stdout) as { name: string }[]).map((key) => key.name)).toEqual(expect.arrayContaining(["offline", "online"]));
      const migrated = await cli("db.ts", ["migrate"]);
      expect([migrated.code, migrated.stdout]).toEqual([EXIT.ok, "Database schema is up to date.\n"]);
    }, 60_000);

    it("usage errors, unknown ids and --help answer with the offline CLI's words and exit codes", async () => {
      const [usage, unknown, help] = await Promise.all([
        cli("keys.ts", ["create", "--credits", "10"]),
        cli("keys.ts", ["revoke", "key_does_not_exist"]),
        cli("workspaces.ts", ["--help"]),
      ]);
      expect([usage.code, usage.stderr.split("\n")[0], usage.stderr]).toEqual([EXIT.usage, "error: --name is required (1-100 characters)", expect.stringMatching(/\nusage: npm run --silent keys/)]);
      expect([unknown.code, unknown.stderr]).toEqual([EXIT.notFound, "error: no key with id key_does_not_exist\n"]);
      expect([help.code, help.stdout.split("\n")[0]]).toEqual([EXIT.ok, "usage: npm run --silent workspaces -- <command>"]);
    }, 60_000);

    it("the audit log holds the same entries for the commands run through the server as for those run offline", async () => {
      const admin = await consoleClient(target).admin();
      const answer = await consoleClient(target).api(admin, "GET", "/api/admin/audit?limit=200");
      expect(answer.status, answer.text).toBe(200);
      type Entry = { workspaceId: string | null; actorEmail: string; action: string; targetType: string; targetId: string; details: Record<string, unknown>; ip: string };
      const entries = (answer.body as { entries: Entry[] }).entries.filter((entry) => entry.actorEmail === OPERATOR_ACTOR);
      const offlineId = (JSON.parse(offline.team?.stdout ?? "{}") as { id: string }).id;
      // Everything but the ids and the time: who, what, from where, with which details.
      const trail = (workspaceId: string) =>
        entries
          .filter((entry) => entry.workspaceId === workspaceId)
          .reverse()
          .map(({ actorEmail, action, targetType, details, ip }) => ({ actorEmail, action, targetType, details, ip }));
      expect(trail(offlineId).map((entry) => entry.action)).toEqual(["workspace.create", "pool.credits"]);
      expect(trail(teamId)).toEqual(trail(offlineId));
      expect(trail(teamId)[0]).toMatchObject({ actorEmail: OPERATOR_ACTOR, ip: "local" });
    });
  });

  describe("the socket's guards", () => {
    it("a socket other users could reach is refused: nothing is sent, and the CLI says why (exit 5)", async () => {
      const before = operatorLogLines().length;
      fs.chmodSync(socketPath(), 0o666);
      let refused: CliResult;
      try {
        refused = await cli("keys.ts", ["list"]);
      } finally {
        fs.chmodSync(socketPath(), 0o600);
      }
      expect([refused.code, refused.stdout]).toEqual([EXIT.databaseLocked, ""]);
      expect(refused.stderr).toMatch(/^error: The embedded database at .* is in use by process \d+ \(the server\), and its operator socket .*operator\.sock is refused: its mode 0666 lets other users connect \(it must be 0600\)\. Restart the server/);
      expect(operatorLogLines()).toHaveLength(before);
      expect((await cli("keys.ts", ["list"])).code).toBe(EXIT.ok);
    }, 60_000);

    it("a malformed request is answered with a clear error and exit code 2, and the connection closed", async () => {
      const valid = { v: 1, command: "keys", args: ["list"], cwd: "/", tty: false };
      const cases: [payload: string, problem: RegExp][] = [
        ["not json\n", /^not a JSON object$/],
        [`${JSON.stringify({ ...valid, command: "rm" })}\n`, /^command: command must be one of keys, workspaces, import, export, db$/],
        [`${JSON.stringify({ ...valid, v: 2 })}\n`, /^v: v must be 1$/],
        [`${JSON.stringify({ ...valid, cwd: "relative" })}\n`, /^cwd: cwd must be an absolute path$/],
        // Only the arguments travel: no settings of the caller's (the server's own apply).
        [`${JSON.stringify({ ...valid, env: { DATA_DIR: "/" } })}\n`, /^Unrecognized key: "env"$/],
        ["x".repeat(70_000), /^the request line is longer than 65536 bytes$/],
      ];
      const answers = await Promise.all(cases.map(([payload]) => rawExchange(payload)));
      answers.forEach((answer, index) => {
        const problem = cases[index]?.[1] ?? /$^/;
        const [refusal, exit, ...rest] = answer.frames;
        const text = refusal !== undefined && refusal !== null && "err" in refusal ? refusal.err : "";
        expect({ case: index, closed: answer.closed, exit, rest }).toEqual({ case: index, closed: true, exit: { exit: EXIT.usage }, rest: [] });
        expect(text.replace(/^error: malformed operator request: /, "").trimEnd(), text).toMatch(problem);
        expect(text.startsWith("error: malformed operator request: ")).toBe(true);
      });
    }, 60_000);
  });

  it("once the server has stopped, its socket is gone and the CLIs open the database themselves again", async () => {
    await stopServer(target);
    expect(fs.existsSync(socketPath())).toBe(false);
    const listed = await cli("keys.ts", ["list", "--json"]);
    expect([listed.code, listed.stderr]).toEqual([EXIT.ok, ""]);
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((key) => key.name)).toEqual(expect.arrayContaining(["offline", "online"]));
  }, 60_000);
});
