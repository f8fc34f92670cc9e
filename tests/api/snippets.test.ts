import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { registry } from "@/lib/operations";
import { operationDocs } from "@/lib/openapi/docs";
import { ACCOUNT_CLIENT_NAMES, fetchSnippet, KEY_ENV_VAR, pythonClientSnippet, pythonSnippet, sdkSnippet, type ApiCall, type ClientNames, type QueryParam } from "@/lib/snippets/snippets";
import { ROOT, type ApiTarget } from "./harness";
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
// The SDK snippet imports @social-lookup/client: it runs from inside the repository, where `npm ci` installed it.
fs.mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
const sdkWorkDir = fs.mkdtempSync(path.join(ROOT, "test-results", "snippets-"));
afterAll(() => {
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.rmSync(sdkWorkDir, { recursive: true, force: true });
});

type Printed = { status: number; envelope: { code: number; message: string; data: unknown; requestId: string } };

const parsePrinted = (stdout: string): Printed => {
  const [statusLine = "", ...rest] = stdout.trimEnd().split("\n");
  return { status: Number(statusLine), envelope: JSON.parse(rest.join("\n")) as Printed["envelope"] };
};

/**
 * The environment a snippet runs in: the key under SOCIAL_LOOKUP_API_KEY, written out here rather
 * than read from KEY_ENV_VAR, the name the SDK, the Python client, the command line and the docs
 * read — a snippet that read another name would find no key and get a 401.
 */
const snippetEnv = (token: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const { SOCIAL_LOOKUP_KEY: _old, SOCIAL_LOOKUP_API_KEY: _outer, ...inherited } = process.env;
  return { ...inherited, SOCIAL_LOOKUP_API_KEY: token, ...extra };
};

const runSnippet = async (language: "fetch" | "python", apiCall: ApiCall, token: string): Promise<Printed> => {
  const file = path.join(workDir, `${crypto.randomUUID()}.${language === "fetch" ? "mjs" : "py"}`);
  fs.writeFileSync(file, language === "fetch" ? fetchSnippet(apiCall) : pythonSnippet(apiCall));
  const env = snippetEnv(token);
  const { stdout } =
    language === "fetch" ? await run(process.execPath, [file], { env }) : await run("python3", ["-I", file], { env });
  return parsePrinted(stdout);
};

/** The clients' names of a call, as the API page gives them to its snippets (lib/openapi/docs.ts). */
const clientNamesOf = (callPath: string): ClientNames =>
  operationDocs(registry).find((operation) => operation.path === callPath)?.client ?? ACCOUNT_CLIENT_NAMES;

/** A client snippet prints the receipt line, then the data. */
const runClientSnippet = async (language: "sdk" | "python-client", apiCall: ApiCall, token: string): Promise<{ receipt: string; data: unknown }> => {
  const names = clientNamesOf(apiCall.path);
  const env = snippetEnv(token, { PYTHONPATH: path.join(ROOT, "clients", "python"), PYTHONDONTWRITEBYTECODE: "1" });
  const { stdout } =
    language === "sdk"
      ? await run(process.execPath, [writeSnippet(sdkWorkDir, "mjs", sdkSnippet(apiCall, names))], { env })
      : await run("python3", [writeSnippet(workDir, "py", pythonClientSnippet(apiCall, names))], { env });
  const [receipt = "", ...rest] = stdout.trimEnd().split("\n");
  return { receipt, data: JSON.parse(rest.join("\n")) };
};

const writeSnippet = (dir: string, extension: string, code: string): string => {
  const file = path.join(dir, `${crypto.randomUUID()}.${extension}`);
  fs.writeFileSync(file, code);
  return file;
};

describe("the key's environment variable", () => {
  it("is SOCIAL_LOOKUP_API_KEY in every snippet, the name the SDK, the Python client and the command line read", () => {
    expect(KEY_ENV_VAR).toBe("SOCIAL_LOOKUP_API_KEY");
    const apiCall: ApiCall = { baseUrl: "http://127.0.0.1:3000", path: paths.followers, params: [["userid", "2000000002"]] };
    const names = clientNamesOf(apiCall.path);
    for (const snippet of [fetchSnippet(apiCall), pythonSnippet(apiCall), sdkSnippet(apiCall, names), pythonClientSnippet(apiCall, names)]) {
      expect(snippet).toContain("SOCIAL_LOOKUP_API_KEY");
      expect(snippet).not.toMatch(/SOCIAL_LOOKUP_KEY\b/);
    }
    for (const client of ["clients/typescript/src/client.ts", "clients/python/social_lookup/_client.py", "clients/typescript/src/cli/common.ts"]) {
      expect(fs.readFileSync(path.join(ROOT, client), "utf8")).toContain("SOCIAL_LOOKUP_API_KEY");
    }
  });
});

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const key = target.keys.snippets;

  describe.each(calls)("the $name snippets of the clients", ({ path: callPath, params }) => {
    const apiCall: ApiCall = { baseUrl: target.baseUrl, path: callPath, params };

    it.each(["sdk", "python-client"] as const)("%s: prints the receipt and the data /v1 answers", async (language) => {
      const printed = await runClientSnippet(language, apiCall, target.keys.clientsSnippets.token);
      const direct = await call(target, callPath, { auth: target.keys.clientsSnippets, query: Object.fromEntries(params) });
      expect(direct.status).toBe(200);
      const cost = Number(direct.headers.get("x-credits-cost"));
      expect(printed.receipt).toMatch(new RegExp(`^charged ${callPath === "/v1/account" ? 0 : cost} credits, \\d+ left$`));
      if (callPath === "/v1/account") expect(printed.data).toMatchObject({ key: { id: target.keys.clientsSnippets.id } });
      else expect(printed.data).toEqual((direct.body as { data: unknown }).data);
    });
  });

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
