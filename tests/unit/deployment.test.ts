import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
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

/** Keys of the `environment:` map of the shared app definition (`x-app`) in compose.yaml. */
const composeAppVariables = (text: string): Map<string, string> => {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.startsWith("x-app:"));
  const variables = new Map<string, string>();
  let inEnvironment = false;
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    if (/^ {2}environment:\s*$/.test(line)) {
      inEnvironment = true;
      continue;
    }
    if (inEnvironment) {
      const match = /^ {4}([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
      if (match?.[1]) variables.set(match[1], (match[2] ?? "").replace(/^"|"$/g, ""));
      else if (/^ {2}\S/.test(line)) inEnvironment = false;
    }
  }
  return variables;
};

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
    const text = read("compose.yaml");
    const variables = composeAppVariables(text);
    expect([...variables.keys()]).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL", "AUTH_SECRET"]));
    for (const name of variables.keys()) expect(known, `compose.yaml sets ${name}`).toContain(name);
    expect(text).toMatch(/^ {2}app-1:/m);
    expect(text).toMatch(/^ {2}app-2:/m);
    expect(text).toMatch(/^ {2}postgres:/m);
    expect(text).toMatch(/^ {2}redis:/m);
    expect(text.match(/healthcheck:/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it("the values compose sets literally are valid for the env module", () => {
    const literal = Object.fromEntries(
      [...composeAppVariables(read("compose.yaml"))].filter(([, value]) => !value.includes("${")),
    );
    expect(() => parseEnv(literal)).not.toThrow();
  });
});
