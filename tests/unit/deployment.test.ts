import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { nextProcessEnv } from "@/lib/cli/build";
import { envVariableNames, parseEnv } from "@/lib/env";
import { serverArgs } from "@/scripts/server-process";

/**
 * The Dockerfile and compose.yaml cannot be run on the development machines (no Docker
 * engine), so this keeps them honest: every variable they set must be one the app reads.
 */
const root = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

const dockerfileVariables = (text: string): string[] =>
  text.split("\n").flatMap((line) => {
    const match = /^ENV\s+([A-Z][A-Z0-9_]*)[=\s]/.exec(line.trim());
    return match?.[1] ? [match[1]] : [];
  });

type ComposeService = { environment?: Record<string, unknown>; healthcheck?: unknown };
type ComposeFile = { services?: Record<string, ComposeService> };

/** compose.yaml as compose reads it: `<<: *app` merges the shared app definition into each instance. */
const readCompose = (): ComposeFile => parse(read("compose.yaml"), { merge: true }) as ComposeFile;

/** The `environment:` map of an app instance, values as strings (compose passes them as text). */
const appVariables = (compose: ComposeFile, service = "app-1"): Map<string, string> =>
  new Map(Object.entries(compose.services?.[service]?.environment ?? {}).map(([name, value]) => [name, String(value)]));

/** Read by Next itself rather than by the app's env module. */
const READ_BY_NEXT = ["NEXT_TELEMETRY_DISABLED"];

describe("deployment files", () => {
  const known = new Set([...envVariableNames(), ...READ_BY_NEXT]);

  it("the Dockerfile sets only variables the app reads, and runs the process front as a non-root user", () => {
    const text = read("Dockerfile");
    const variables = dockerfileVariables(text);
    expect(variables).toEqual(expect.arrayContaining(["NODE_ENV", "HOST", "PORT", "DATA_DIR"]));
    for (const name of variables) expect(known, `Dockerfile sets ${name}`).toContain(name);
    // A container is reached through its network interface, not its loopback.
    expect(text).toMatch(/^ENV HOST=0\.0\.0\.0$/m);
    expect(text).toMatch(/^USER app$/m);
    expect(text).toContain("HEALTHCHECK");
    // Next's standalone output cannot carry a custom server: the image runs server.ts.
    expect(text).not.toMatch(/\.next\/standalone|NEXT_OUTPUT/);
    // The same command npm start and start:cluster run (scripts/server-process.ts), in the app directory.
    const command = /^CMD (\[.*\])$/m.exec(text)?.[1] ?? "null";
    expect(JSON.parse(command)).toEqual(["node", ...serverArgs(".")]);
  });

  it("the image holds everything server.ts reads at runtime, and no local build or data", () => {
    const text = read("Dockerfile");
    const copied = text.split("\n").filter((line) => /^COPY /.test(line)).join("\n");
    // Sources server.ts runs through tsx, lib/**/*.sql included, and the path aliases.
    for (const file of ["server.ts", "next.config.ts", "tsconfig.json", "package.json"]) expect(copied).toContain(file);
    expect(copied).toMatch(/^COPY --chown=app:app lib \.\/lib$/m);
    expect(copied).toMatch(/\/app\/\.next \.\/\.next/);
    expect(copied).toMatch(/\/app\/public \.\/public/);
    expect(text).toMatch(/npm ci --omit=dev/);
    // server.ts imports nothing from outside lib/ besides packages (what the image copies).
    const imports = [...read("server.ts").matchAll(/from "([^"]+)"/g)].map((match) => match[1] ?? "");
    for (const source of imports.filter((name) => name.startsWith("@/") || name.startsWith("."))) {
      expect(source, `server.ts imports ${source}`).toMatch(/^@\/lib\//);
    }
    const ignored = read(".dockerignore").split("\n").map((line) => line.trim());
    for (const entry of ["node_modules", ".next", ".data"]) expect(ignored).toContain(entry);
  });

  it("Next's telemetry is off wherever Next runs: npm scripts, the build and server npm start spawn, the image, compose", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    for (const name of ["dev", "build", "start", "serve"]) expect(scripts[name], `npm run ${name}`).toMatch(/^(\S+=\S+ )*NEXT_TELEMETRY_DISABLED=1 /);
    expect(nextProcessEnv({ PATH: "/bin" })).toEqual({ PATH: "/bin", NEXT_TELEMETRY_DISABLED: "1" });
    expect(nextProcessEnv({ NEXT_TELEMETRY_DISABLED: "0" }).NEXT_TELEMETRY_DISABLED).toBe("1");
    const text = read("Dockerfile");
    // Set in the first stage (the build stage is built from it) and in the image that runs.
    const stages = text.split(/^FROM /m).slice(1);
    expect(stages.map((stage) => stage.split("\n")[0])).toEqual([
      "node:22-bookworm-slim AS deps",
      "deps AS build",
      "node:22-bookworm-slim AS prod-deps",
      "node:22-bookworm-slim AS run",
    ]);
    for (const stage of [stages[0], stages[3]]) expect(stage).toMatch(/^ENV NEXT_TELEMETRY_DISABLED=1$/m);
    expect(appVariables(readCompose()).get("NEXT_TELEMETRY_DISABLED")).toBe("1");
  });

  it("compose.yaml puts the two instances behind its balancer and trusts exactly that one proxy", () => {
    const text = read("compose.yaml");
    const variables = appVariables(readCompose());
    expect(variables.get("TRUSTED_PROXY_HOPS")).toBe("1");
    expect(variables.get("HOST")).toBe("0.0.0.0");
    expect(text).toMatch(/^ {2}lb:/m);
    // The apps publish no port: a client reaching one directly could forge X-Forwarded-For.
    const appBlocks = text.split(/^ {2}(?=app-\d:)/m).slice(1).map((block) => block.split(/^ {2}\S/m)[0] ?? "");
    expect(appBlocks).toHaveLength(2);
    for (const block of appBlocks) expect(block).not.toMatch(/ports:/);
    const nginx = read("deploy/nginx.conf");
    expect(nginx).toMatch(/server app-1:3000;/);
    expect(nginx).toMatch(/server app-2:3000;/);
    expect(nginx).toMatch(/X-Forwarded-For \$proxy_add_x_forwarded_for/);
  });

  it("compose.yaml runs two app instances on PostgreSQL and Redis with variables the app reads", () => {
    const compose = readCompose();
    const services = compose.services ?? {};
    expect(Object.keys(services)).toEqual(expect.arrayContaining(["app-1", "app-2", "postgres", "redis"]));
    for (const instance of ["app-1", "app-2"]) {
      const variables = appVariables(compose, instance);
      expect([...variables.keys()]).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL", "AUTH_SECRET"]));
      for (const name of variables.keys()) expect(known, `compose.yaml sets ${name} for ${instance}`).toContain(name);
    }
    for (const name of ["app-1", "app-2", "postgres", "redis"]) expect(services[name]?.healthcheck, `${name} has a healthcheck`).toBeDefined();
  });

  it("the image's and compose's health checks ask /readyz, and compose waits out the shutdown timeout", () => {
    expect(read("Dockerfile")).toMatch(/^ {2}CMD node -e "fetch\('http:\/\/127\.0\.0\.1:3000\/readyz'\)/m);
    const app = readCompose().services?.["app-1"] as (ComposeService & { healthcheck?: { test?: string[] }; stop_grace_period?: string }) | undefined;
    expect(app?.healthcheck?.test?.join(" ")).toContain("http://127.0.0.1:3000/readyz");
    const graceS = Number(/^(\d+)s$/.exec(app?.stop_grace_period ?? "")?.[1]);
    expect(graceS).toBeGreaterThan(parseEnv({}).SHUTDOWN_TIMEOUT_S + 5);
  });

  it("the values compose sets literally are valid for the env module", () => {
    const literal = Object.fromEntries([...appVariables(readCompose())].filter(([, value]) => !value.includes("${")));
    expect(() => parseEnv(literal)).not.toThrow();
  });
});
