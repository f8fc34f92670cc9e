import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { inheritedEnv, runCaptured } from "@/lib/cli/processes";
import { consoleClient } from "./console-client";
import { ROOT, type ApiTarget } from "./harness";

/**
 * The Python client (clients/python, `social_lookup`) against the production servers: its own
 * tests (`python3 -m unittest`, clients/python/tests) run with the server's URL and this suite's
 * keys in the environment — every operation, 10,000 followers to the end, the 2/s key, the 402, a
 * batch end to end with its signed webhook, a forged one refused. Every test must run: a skipped
 * one fails here. Without python3 (3.10 or later) the file is skipped, saying why.
 */
const targets = inject("apiTargets");
const PYTHON_DIR = path.join(ROOT, "clients", "python");

const pythonProblem = ((): string | null => {
  const probe = spawnSync("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) return "python3 is not on PATH";
  const [major = 0, minor = 0] = probe.stdout.trim().split(".").map(Number);
  return major > 3 || (major === 3 && minor >= 10) ? null : `python3 is ${probe.stdout.trim()}; the client needs 3.10 or later`;
})();
if (pythonProblem !== null) console.log(`\n[api-suite] SKIPPED: Python client tests — ${pythonProblem}\n`);

describe.skipIf(pythonProblem !== null).each(targets.map((target) => [target.kind, target] as const))("the Python client on %s", (_kind, target: ApiTarget) => {
  it("passes its unittest suite against this server, every test run (none skipped)", async () => {
    const api = consoleClient(target);
    const admin = await api.admin();
    const analyst = await api.analyst(admin, "python-batches", 2000);
    const batchKey = await api.consoleKey(analyst, 1000, 50);
    const alerts = await api.api(analyst, "GET", `/api/keys/${batchKey.id}/alerts`);
    const secret = (alerts.body as { signingSecret: string }).signingSecret;
    const keys = {
      main: target.keys.clientsPython.token,
      slow: target.keys.clientsPythonSlow.token,
      poor: target.keys.clientsPythonPoor.token,
      batch: { token: batchKey.token, secret },
    };
    const run = await runCaptured("python3", ["-m", "unittest", "discover", "-s", "tests", "-v"], {
      cwd: PYTHON_DIR,
      env: {
        ...inheritedEnv(),
        NODE_ENV: "production",
        PYTHONDONTWRITEBYTECODE: "1",
        SOCIAL_LOOKUP_BASE_URL: target.baseUrl,
        SOCIAL_LOOKUP_TEST_KEYS: JSON.stringify(keys),
      },
    });
    // unittest reports on stderr; a token never appears there (the keys travel in the environment).
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/\nOK\n?$/);
    expect(run.stderr).not.toMatch(/skipped/i);
    const ran = Number(/Ran (\d+) tests?/.exec(run.stderr)?.[1] ?? 0);
    expect(ran).toBeGreaterThanOrEqual(18);
  }, 180_000);
});
