import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { inheritedEnv } from "@/lib/cli/processes";
import { consoleClient } from "./console-client";
import { embeddedInRun, ROOT, type ApiTarget } from "./harness";

/**
 * The clients' READMEs as a reader uses them: every ```js and ```python example runs, as written,
 * against the production server (the key and the server in SOCIAL_LOOKUP_API_KEY and
 * SOCIAL_LOOKUP_BASE_URL, as the READMEs say), and exits 0; and the SDK packed as the README
 * says (`npm pack`) installs into a project outside the repository, imports and calls the API
 * there, and brings its `social-lookup` command. The examples are documentation, not behaviour:
 * they run on the first target only (the clients' own tests cover both databases). The webhook
 * examples must report the genuine batch.finished they received, and, when the server may not
 * reach their receiver, say how to start it so that it may.
 */
const targets = inject("apiTargets");
const run = promisify(execFile);

type Example = { file: string; language: "js" | "python"; code: string; line: number };

const examplesOf = (readme: string): Example[] => {
  const text = fs.readFileSync(path.join(ROOT, readme), "utf8");
  return [...text.matchAll(/^```(js|python)\n([\s\S]*?)^```$/gm)].map((match) => ({
    file: readme,
    language: match[1] === "js" ? "js" : "python",
    code: match[2] ?? "",
    line: text.slice(0, match.index).split("\n").length,
  }));
};

const examples = [...examplesOf("clients/typescript/README.md"), ...examplesOf("clients/python/README.md")];
// The SDK's examples import @social-lookup/client: they run from inside the repository, where `npm ci` linked it.
fs.mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
const workDir = fs.mkdtempSync(path.join(ROOT, "test-results", "readme-examples-"));
const outsideDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-sdk-consumer-"));
afterAll(() => {
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.rmSync(outsideDir, { recursive: true, force: true });
});

const hasPython = spawnSync("python3", ["--version"]).status === 0;
if (!hasPython) console.log("\n[api-suite] SKIPPED: the Python README's examples — python3 is not on PATH\n");

// Needs no database: it runs once, in the run that covers the embedded one.
describe.runIf(embeddedInRun).each(targets.slice(0, 1).map((target) => [target.kind, target] as const))("the clients' documentation on %s", (_kind, target: ApiTarget) => {
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // A console key: its signing secret is what the webhook examples verify with.
    const api = consoleClient(target);
    const admin = await api.admin();
    const analyst = await api.analyst(admin, "readme-examples", 2000);
    const key = await api.consoleKey(analyst, 1000, 50);
    const alerts = await api.api(analyst, "GET", `/api/keys/${key.id}/alerts`);
    env = {
      ...inheritedEnv(),
      NODE_ENV: "production",
      SOCIAL_LOOKUP_API_KEY: key.token,
      SOCIAL_LOOKUP_BASE_URL: target.baseUrl,
      SOCIAL_LOOKUP_WEBHOOK_SECRET: (alerts.body as { signingSecret: string }).signingSecret,
      // The suite's servers deliver webhooks to 127.0.0.9 only (WEBHOOK_ALLOWED_NETWORKS).
      WEBHOOK_HOST: "127.0.0.9",
      PYTHONPATH: path.join(ROOT, "clients", "python"),
      PYTHONDONTWRITEBYTECODE: "1",
    };
  });

  it("finds the examples", () => {
    expect(examples.filter((example) => example.language === "js").length).toBeGreaterThanOrEqual(5);
    expect(examples.filter((example) => example.language === "python").length).toBeGreaterThanOrEqual(5);
  });

  const runExample = (example: Example, extraEnv: Record<string, string> = {}) => {
    const file = path.join(workDir, `${crypto.randomUUID()}.${example.language === "js" ? "mjs" : "py"}`);
    fs.writeFileSync(file, example.code);
    return run(example.language === "js" ? process.execPath : "python3", [file], { env: { ...env, ...extraEnv }, cwd: workDir, timeout: 90_000 });
  };

  const webhookExamples = examples.filter((example) => example.code.includes("WEBHOOK_HOST"));

  it.each(examples.filter((example) => !webhookExamples.includes(example)).map((example) => [`${example.file}:${example.line}`, example] as const))("%s runs and exits 0", async (_where, example) => {
    if (example.language === "python" && !hasPython) return;
    const { stdout } = await runExample(example);
    expect(stdout.trim()).not.toBe("");
  });

  it("finds two webhook examples in each README: the SDK's receiver, and a receiver of one's own", () => {
    expect(webhookExamples.map((example) => `${example.language} ${example.code.includes("verify_webhook(") || example.code.includes("verifyWebhook(") ? "own" : "receiver"}`)).toEqual(["js receiver", "js own", "python receiver", "python own"]);
  });

  it.each(webhookExamples.map((example) => [`${example.file}:${example.line}`, example] as const))("%s reports the batch's genuine webhook", async (_where, example) => {
    if (example.language === "python" && !hasPython) return;
    const { stdout } = await runExample(example);
    const own = example.code.includes("verify_webhook(") || example.code.includes("verifyWebhook(");
    if (own) {
      expect(stdout).toMatch(/^delivery \d+: batch\.finished$/m);
      expect(stdout).toMatch(/^batch [0-9a-f-]{36}: (done, 4 credits|finished)$/m);
    } else expect(stdout).toMatch(/^done batch\.finished: 1 found; 1 genuine event\(s\), 0 forged refused$/m);
  });

  it.each(webhookExamples.filter((example) => !example.code.includes("verify")).map((example) => [`${example.file}:${example.line}`, example] as const))(
    "%s says how to let the server deliver when it may not reach the receiver",
    async (_where, example) => {
      if (example.language === "python" && !hasPython) return;
      // The suite's servers refuse 127.0.0.1 as a default server refuses every loopback address.
      const failure = await runExample(example, { WEBHOOK_HOST: "127.0.0.1" }).then(
        () => null,
        (error: unknown) => error as { code: number; stderr: string },
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toMatch(/webhookUrl \(The webhook URL is refused: not a public address\.\) Start the server with WEBHOOK_ALLOWED_NETWORKS=127\.0\.0\.1 to let it deliver to http:\/\/127\.0\.0\.1:\d+\//);
    },
  );

  it("packs into a tarball that a project outside the repository installs, imports and runs", async () => {
    const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", outsideDir, "--silent"], { cwd: path.join(ROOT, "clients", "typescript"), env });
    const tarball = path.join(outsideDir, packed.stdout.trim().split("\n").at(-1) ?? "");
    expect(fs.existsSync(tarball)).toBe(true);
    const project = path.join(outsideDir, "pipeline");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "pipeline", private: true, type: "module" }));
    await run("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund", "--silent"], { cwd: project, env });
    // Only the compiled package travels: dist/ and the README, no sources, no runtime dependency.
    const installed = JSON.parse(fs.readFileSync(path.join(project, "node_modules", "@social-lookup", "client", "package.json"), "utf8")) as { dependencies?: unknown };
    expect(installed.dependencies).toBeUndefined();
    expect(fs.existsSync(path.join(project, "node_modules", "@social-lookup", "client", "src"))).toBe(false);
    fs.writeFileSync(
      path.join(project, "check.js"),
      'import { SocialLookup } from "@social-lookup/client";\nconst { data } = await new SocialLookup().followers({ userid: "2000000002" });\nconsole.log(data.followers.length);\n',
    );
    expect((await run(process.execPath, ["check.js"], { cwd: project, env })).stdout.trim()).toBe("25");
    const version = await run(process.execPath, [path.join(project, "node_modules", ".bin", "social-lookup"), "--version"], { cwd: project, env });
    expect(version.stdout.trim()).toBe("1.0.0");
  });
});
