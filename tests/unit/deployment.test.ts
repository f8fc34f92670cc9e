import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { envVariableNames, parseEnv } from "@/lib/env";

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

describe("deployment files", () => {
  const known = new Set(envVariableNames());

  it("the Dockerfile sets only variables the app reads, and builds the standalone server", () => {
    const text = read("Dockerfile");
    const variables = dockerfileVariables(text);
    expect(variables).toEqual(expect.arrayContaining(["NODE_ENV", "PORT", "DATA_DIR", "NEXT_OUTPUT"]));
    for (const name of variables) expect(known, `Dockerfile sets ${name}`).toContain(name);
    expect(text).toMatch(/^USER app$/m);
    expect(text).toContain("HEALTHCHECK");
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

  it("the values compose sets literally are valid for the env module", () => {
    const literal = Object.fromEntries([...appVariables(readCompose())].filter(([, value]) => !value.includes("${")));
    expect(() => parseEnv(literal)).not.toThrow();
  });
});
