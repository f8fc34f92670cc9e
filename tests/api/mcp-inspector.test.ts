import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { inheritedEnv, runCaptured } from "@/lib/cli/processes";
import { ROOT, type ApiTarget } from "./harness";

/**
 * A client nobody here wrote: the MCP Inspector's CLI mode lists the tools of /mcp and calls one.
 * It is installed from the npm registry once into a cache outside node_modules (as scripts/test.sh
 * does for further Node.js lines), so the project's own dependency tree stays as it is.
 */
const targets = inject("apiTargets");

const INSPECTOR = "@modelcontextprotocol/inspector@0.21.2";
const cacheDir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "social-lookup", "mcp-inspector-0.21.2");
const cli = path.join(cacheDir, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build", "cli.js");

const inspect = (target: ApiTarget, token: string, args: readonly string[]) =>
  runCaptured(
    process.execPath,
    [cli, "--cli", `${target.baseUrl}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args],
    { cwd: ROOT, env: { ...inheritedEnv(), NODE_ENV: "production" } },
  );

beforeAll(async () => {
  if (fs.existsSync(cli)) return;
  fs.mkdirSync(cacheDir, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const installed = await runCaptured(npm, ["install", "--prefix", cacheDir, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", INSPECTOR], {
    cwd: cacheDir,
    env: process.env,
  });
  if (installed.code !== 0 || !fs.existsSync(cli)) throw new Error(`installing ${INSPECTOR} failed: ${installed.stderr}`);
}, 300_000);

describe.each(targets)("$kind server", (target: ApiTarget) => {
  describe("the MCP Inspector CLI against /mcp", () => {
    it("lists the tools", async () => {
      const listed = await inspect(target, target.keys.mcpInspector.token, ["--method", "tools/list"]);
      expect(listed.code, listed.stderr).toBe(0);
      const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] };
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["followers", "get_user_publications", "account_balance"]));
    });

    it("calls a tool and gets the record", async () => {
      const called = await inspect(target, target.keys.mcpInspector.token, [
        "--method",
        "tools/call",
        "--tool-name",
        "get_user_publications",
        "--tool-arg",
        "urn=urn:li:member:3000000001",
      ]);
      expect(called.code, called.stderr).toBe(0);
      const result = JSON.parse(called.stdout) as { isError?: boolean; structuredContent?: { total: number; data: unknown[] } };
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent?.total).toBe(45);
      expect(result.structuredContent?.data).toHaveLength(10);
    });
  });
});
