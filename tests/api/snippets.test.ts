import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { fetchSnippet, KEY_ENV_VAR, pythonSnippet, type ApiCall, type QueryParam } from "@/lib/snippets/snippets";
import type { ApiTarget } from "./harness";
import { call, eventUrl, paths } from "./http";

/**
 * The console's copy-paste snippets, run as a user would run them (Node for fetch, python3 with
 * the standard library only) against the production server with a real key: every operation
 * and /v1/account answer 200, and the snippet prints the same envelope the API sends.
 */
const targets = inject("apiTargets");
const run = promisify(execFile);

const calls: { name: string; path: string; params: QueryParam[] }[] = [
  { name: "event by URL", path: paths.eventByUrl, params: [["url", eventUrl("1000000000000001")]] },
  { name: "event by id", path: paths.eventById, params: [["event_id", "1000000000000001"]] },
  { name: "followers", path: paths.followers, params: [["userid", "2000000002"]] },
  { name: "publications", path: paths.publications, params: [["urn", "urn:li:member:3000000001"], ["page", "2"]] },
  { name: "account", path: "/v1/account", params: [] },
];

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-snippets-"));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

type Printed = { status: number; envelope: { code: number; message: string; data: unknown; requestId: string } };

const parsePrinted = (stdout: string): Printed => {
  const [statusLine = "", ...rest] = stdout.trimEnd().split("\n");
  return { status: Number(statusLine), envelope: JSON.parse(rest.join("\n")) as Printed["envelope"] };
};

const runSnippet = async (language: "fetch" | "python", apiCall: ApiCall, token: string): Promise<Printed> => {
  const file = path.join(workDir, `${crypto.randomUUID()}.${language === "fetch" ? "mjs" : "py"}`);
  fs.writeFileSync(file, language === "fetch" ? fetchSnippet(apiCall) : pythonSnippet(apiCall));
  const env = { ...process.env, [KEY_ENV_VAR]: token };
  const { stdout } =
    language === "fetch" ? await run(process.execPath, [file], { env }) : await run("python3", ["-I", file], { env });
  return parsePrinted(stdout);
};

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const key = target.keys.snippets;

  describe.each(calls)("the $name snippets", ({ path: callPath, params }) => {
    const apiCall: ApiCall = { baseUrl: target.baseUrl, path: callPath, params };

    it.each(["fetch", "python"] as const)("%s: answers 200 and prints the envelope the API sends", async (language) => {
      const printed = await runSnippet(language, apiCall, key.token);
      const direct = await call(target, callPath, { auth: key, query: Object.fromEntries(params) });
      expect(printed.status).toBe(200);
      expect(direct.status).toBe(200);
      const { requestId, ...rest } = printed.envelope;
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const directEnvelope = direct.body as Printed["envelope"];
      if (callPath === "/v1/account") {
        // The balance moves with every paid call of this suite; the key's identity does not.
        expect(rest).toMatchObject({ code: 0, message: "success", data: { key: { id: key.id, qps_limit: key.qps } } });
      } else {
        expect(rest).toEqual({ code: directEnvelope.code, message: directEnvelope.message, data: directEnvelope.data });
      }
    });
  });

  it("python prints a 404 envelope rather than a traceback", async () => {
    const printed = await runSnippet("python", { baseUrl: target.baseUrl, path: paths.followers, params: [["userid", "2999999999"]] }, key.token);
    expect(printed.status).toBe(404);
    expect(printed.envelope).toMatchObject({ code: 404, message: "User not found", data: null });
  });
});
