import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SocialLookup, type Follower, type Publication } from "@social-lookup/client";
import { afterAll, describe, expect, inject, it } from "vitest";
import { inheritedEnv, runCaptured } from "@/lib/cli/processes";
import { demoFixtures } from "@/lib/demo/fixtures";
import { parseCsv } from "../support/csv";
import { ROOT, type ApiTarget } from "./harness";

/**
 * The `social-lookup` command (clients/typescript/src/cli.ts, installed by `npm ci` as
 * node_modules/.bin/social-lookup) against the production servers: it writes the same records as
 * the SDK (NDJSON and CSV), runs a batch from a file of inputs to a results file with a progress
 * line, and exits with its documented codes.
 */
const targets = inject("apiTargets");
const BIN = path.join(ROOT, "node_modules", ".bin", "social-lookup");
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-cli-"));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

const run = (target: ApiTarget, args: readonly string[], key: string | null = target.keys.clientsCli.token) =>
  runCaptured(process.execPath, [BIN, ...args], {
    cwd: workDir,
    env: {
      ...inheritedEnv(),
      NODE_ENV: "production",
      SOCIAL_LOOKUP_BASE_URL: target.baseUrl,
      ...(key === null ? {} : { SOCIAL_LOOKUP_API_KEY: key }),
    },
  });

const file = (name: string) => path.join(workDir, name);

describe.each(targets.map((target) => [target.kind, target] as const))("social-lookup on %s", (_kind, target: ApiTarget) => {
  const sdk = new SocialLookup({ apiKey: target.keys.clientsCli.token, baseUrl: target.baseUrl });

  it("followers 2000000001 --all --format ndjson writes all 10,000 entries, as the SDK reads them, with progress on stderr", async () => {
    const out = file(`followers-${target.kind}.ndjson`);
    const result = await run(target, ["followers", "2000000001", "--all", "--format", "ndjson", "--out", out, "--progress"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("");
    const lines = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as Follower);
    expect(lines).toHaveLength(10_000);
    expect(new Set(lines.map((line) => line.node.entityId)).size).toBe(10_000);
    expect(result.stderr).toContain("400 pages · 10,000 entries · 800 credits spent");
    // The same records as the SDK's walk (its first pages: the whole walk is proven in clients-typescript.test.ts).
    const viaSdk: Follower[] = [];
    for await (const follower of sdk.followers.iterate({ userid: "2000000001" }, { maxPages: 3 })) viaSdk.push(follower);
    expect(lines.slice(0, 75)).toEqual(viaSdk);
  });

  it("followers 2000000002 --all writes its 30 followers exactly as the SDK's walk yields them", async () => {
    const result = await run(target, ["followers", "2000000002", "--all"]);
    expect(result.code, result.stderr).toBe(0);
    const viaSdk: Follower[] = [];
    for await (const follower of sdk.followers.iterate({ userid: "2000000002" })) viaSdk.push(follower);
    expect(viaSdk).toHaveLength(30);
    expect(result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Follower)).toEqual(viaSdk);
  });

  it("publications --all --format csv writes a row per publication, as the SDK's records flattened", async () => {
    const result = await run(target, ["publications", "urn:li:member:3000000001", "--all", "--format", "csv"]);
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = parseCsv(result.stdout);
    const columns = ["title", "publication", "date", "publication_url", "description"] as const;
    expect(header).toEqual([...columns]);
    const viaSdk: Publication[] = [];
    for await (const publication of sdk.publications.iterate({ urn: "urn:li:member:3000000001" })) viaSdk.push(publication);
    expect(rows).toEqual(viaSdk.map((publication) => columns.map((column) => publication[column])));
  });

  it("event-details-id prints the record the SDK gets; --format csv flattens it as batches do", async () => {
    const json = await run(target, ["event-details-id", "1000000000000003"]);
    expect(json.code, json.stderr).toBe(0);
    const viaSdk = await sdk.eventDetailsId({ event_id: "1000000000000003" });
    expect(JSON.parse(json.stdout)).toEqual(viaSdk.data);
    const csv = await run(target, ["event-details-id", "1000000000000003", "--format", "csv"]);
    const [header = [], row = []] = parseCsv(csv.stdout);
    expect(Object.fromEntries(header.map((column, index) => [column, row[index]]))).toMatchObject({
      event_id: "1000000000000003",
      title: viaSdk.data.event.title,
      hosts: viaSdk.data.event.hosts.join("; "),
    });
  });

  it("batch run writes the batch's results to --out, the records the SDK reads, with done/total and credits on stderr", async () => {
    const inputs = file(`inputs-${target.kind}.txt`);
    const unknown = Array.from({ length: 5 }, (_, index) => String(8_700_000_000_000_001 + index));
    fs.writeFileSync(inputs, [...demoFixtures.eventIds.slice(0, 10), "", ...unknown, "not-an-id"].join("\n"));
    const out = file(`results-${target.kind}.ndjson`);
    const result = await run(target, ["batch", "run", inputs, "--operation", "event_details_id", "--out", out, "--progress"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("refused: not-an-id:");
    expect(result.stderr).toMatch(/\[#{20}\] 100% 15\/15 done · 10 found, 5 not found, 0 failed · 40 credits/);
    const id = /batch ([0-9a-f-]{36}):/.exec(result.stderr)?.[1] ?? "";
    const written = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as unknown);
    const viaSdk: unknown[] = [];
    for await (const record of sdk.batches.get(id).results()) viaSdk.push(record);
    expect(written).toEqual(viaSdk);
    expect(written).toHaveLength(10);

    const csvOut = file(`results-${target.kind}.csv`);
    const csv = await run(target, ["batch", "results", id, "--out", csvOut]);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parseCsv(fs.readFileSync(csvOut, "utf8"));
    expect(rows[0]?.slice(0, 5)).toEqual(["input", "page", "status", "credits", "message"]);
    expect(rows).toHaveLength(16);
  });

  it("exits 6 when the batch stops at its credit cap, after writing what it found", async () => {
    const inputs = file(`capped-${target.kind}.txt`);
    fs.writeFileSync(inputs, demoFixtures.eventIds.slice(10, 13).join("\n"));
    const result = await run(target, ["batch", "run", inputs, "--operation", "event-details-id", "--max-credits", "4"]);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/ended stopped \(cap\)/);
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
  });

  it("stops paging when its reader goes away (| head): nothing more is bought", async () => {
    const child = spawn(process.execPath, [BIN, "followers", "2000000001", "--all", "--progress"], {
      cwd: workDir,
      env: { ...inheritedEnv(), NODE_ENV: "production", SOCIAL_LOOKUP_BASE_URL: target.baseUrl, SOCIAL_LOOKUP_API_KEY: target.keys.clientsCli.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    const pages = Number(/(\d+) pages? · [\d,]+ entries · [\d,]+ credits? spent/.exec(stderr)?.[1] ?? NaN);
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(pages).toBeLessThan(20);
  });

  it("Ctrl-C during batch run cancels the batch on the server and exits 130", async () => {
    const inputs = file(`interrupted-${target.kind}.txt`);
    fs.writeFileSync(inputs, Array.from({ length: 3000 }, (_, index) => String(8_800_000_000_000_001 + index)).join("\n"));
    const child = spawn(process.execPath, [BIN, "batch", "run", inputs, "--operation", "event_details_id", "--quiet"], {
      cwd: workDir,
      env: { ...inheritedEnv(), NODE_ENV: "production", SOCIAL_LOOKUP_BASE_URL: target.baseUrl, SOCIAL_LOOKUP_API_KEY: target.keys.clientsCli.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let interrupted = false;
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (!interrupted && /batch [0-9a-f-]{36}:/.test(stderr)) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(130);
    const id = /batch ([0-9a-f-]{36}):/.exec(stderr)?.[1] ?? "";
    expect(stderr).toContain(`canceled batch ${id}`);
    expect((await sdk.batches.get(id).status()).status).toBe("canceled");
  });

  it("exits with its documented codes: 2 usage, 3 key refused, 4 no credits, 5 not found", async () => {
    const noKey = await run(target, ["account"], null);
    expect([noKey.code, noKey.stderr.split("\n")[0]]).toEqual([2, "error: no API key: set SOCIAL_LOOKUP_API_KEY or pass --key"]);
    const unknownOption = await run(target, ["followers", "2000000002", "--colour", "red"]);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("Run social-lookup followers --help");
    const badInput = await run(target, ["event-details-id", "abc"]);
    expect([badInput.code, badInput.stderr]).toEqual([2, expect.stringContaining("error: Invalid parameter: event_id (HTTP 400, request ")]);
    const refused = await run(target, ["account"], `${target.keys.clientsCli.token.slice(0, -4)}AAAA`);
    expect([refused.code, refused.stderr]).toEqual([3, expect.stringContaining("error: apiKey is invalid (HTTP 401")]);
    const poor = await run(target, ["event-details-id", "1000000000000001"], target.keys.clientsCliPoor.token);
    expect([poor.code, poor.stderr]).toEqual([4, expect.stringContaining("error: apiKey quota is not enough (HTTP 402")]);
    const missing = await run(target, ["followers", "2999999999"]);
    expect([missing.code, missing.stderr]).toEqual([5, expect.stringContaining("error: User not found (HTTP 404")]);
    const cannotWrite = await run(target, ["followers", "2000000002", "--out", path.join(workDir, "no-such-dir", "x.ndjson")]);
    expect([cannotWrite.code, cannotWrite.stderr]).toEqual([2, expect.stringContaining("cannot create")]);
  });

  it("--help on every command says its usage and exits 0", async () => {
    for (const command of [[], ["followers"], ["publications"], ["event-details"], ["event-details-id"], ["account"], ["batch"]]) {
      const result = await run(target, [...command, "--help"], null);
      expect(result.code, command.join(" ")).toBe(0);
      expect(result.stdout).toMatch(/Usage/);
    }
    const root = await run(target, ["--help"], null);
    expect(root.stdout).toContain("Exit codes: 0 done");
  });
});
