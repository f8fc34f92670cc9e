import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { inheritedEnv, runCaptured } from "@/lib/cli/processes";
import { ROOT, type ApiTarget } from "./harness";

/**
 * A client nobody here wrote: the MCP Inspector's CLI mode lists the tools of /mcp and calls one.
 * It is a pinned devDependency (package.json, package-lock.json), so `npm ci` installs it and the
 * suite needs no network at test time.
 */
const targets = inject("apiTargets");

// The launcher of the Inspector's CLI package (the same code `npx @modelcontextprotocol/inspector
// --cli` runs): the top-level package's copy imports commander without declaring it, and in this
// tree an older commander is hoisted; @modelcontextprotocol/inspector-cli carries its own. It runs
// in its build folder: the CLI looks for its package.json relative to the working directory.
const cli = path.join(ROOT, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js");

const inspect = (target: ApiTarget, token: string, args: readonly string[]) =>
  runCaptured(
    process.execPath,
    [cli, "--cli", `${target.baseUrl}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args],
    { cwd: path.dirname(cli), env: { ...inheritedEnv(), NODE_ENV: "production" } },
  );

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
