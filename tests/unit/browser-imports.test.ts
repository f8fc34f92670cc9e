import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What the browser bundle may not hold (docs/performance.md, First Load JS ≤ 1.3× the framework's
 * baseline): zod (≈32 kB gzip), the operations' record schemas, parsers and OpenAPI examples.
 * Starting from the pages `npm run bench:ui` measures, this follows the runtime imports through the
 * source tree (type-only imports are erased) and names any path by which the browser gets them. Console
 * code reads operations through their descriptors (lib/operations/descriptors.ts) and checks
 * parameters with lib/records/param-rules.ts.
 */
const root = path.resolve(__dirname, "../..");

const FORBIDDEN_PACKAGES = new Set(["zod"]);
const FORBIDDEN_MODULES = [
  "lib/records/params.ts",
  "lib/records/records.ts",
  "lib/operations/index.ts",
  "lib/operations/define.ts",
  "lib/operations/batch-shapes.ts",
  "lib/operations/event-example.ts",
  "lib/openapi/json-schema.ts",
];
// Each operation's whole module (its folder's index.ts); its descriptor.ts is the browser's part.
const isOperationModule = (file: string) => /^lib\/operations\/[^/]+\/index\.ts$/.test(file);

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });

const STATIC_IMPORT =
  /^\s*(?:import|export)\s+(type\s+)?((?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+))\s+from\s+["']([^"']+)["']/gm;
const BARE_IMPORT = /^\s*import\s+["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers a module loads at run time: `import type` and all-`type` clauses are erased. */
const runtimeImports = (source: string): string[] => {
  const specifiers: string[] = [];
  for (const [, typeOnly, clause = "", specifier = ""] of source.matchAll(STATIC_IMPORT)) {
    if (typeOnly) continue;
    const named = /^\{([^}]*)\}$/.exec(clause.trim());
    const names = named?.[1]?.split(",").map((name) => name.trim()).filter((name) => name !== "");
    if (names && names.length > 0 && names.every((name) => name.startsWith("type "))) continue;
    specifiers.push(specifier);
  }
  for (const [, specifier = ""] of source.matchAll(BARE_IMPORT)) specifiers.push(specifier);
  for (const [, specifier = ""] of source.matchAll(DYNAMIC_IMPORT)) specifiers.push(specifier);
  return specifiers;
};

/** A project file for a specifier, a package name, or null (CSS, assets). */
const resolve = (from: string, specifier: string): { file: string } | { packageName: string } | null => {
  const base = specifier.startsWith("@/")
    ? specifier.slice(2)
    : specifier.startsWith(".")
      ? path.posix.join(path.posix.dirname(from), specifier)
      : null;
  if (base === null) {
    const parts = specifier.split("/");
    return { packageName: specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier) };
  }
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  const file = candidates.find((candidate) => fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile());
  return file === undefined || !/\.tsx?$/.test(file) ? null : { file };
};

const isClientModule = (file: string) => /^\s*["']use client["']/.test(fs.readFileSync(path.join(root, file), "utf8"));

/** The pages `npm run bench:ui` measures, with the layouts every one of them renders in. */
const MEASURED_PAGES = [
  "app/layout.tsx",
  "app/(console)/layout.tsx",
  "app/(console)/events/page.tsx",
  "app/(console)/followers/page.tsx",
  "app/(console)/publications/page.tsx",
  "app/(console)/keys/page.tsx",
  "app/(console)/usage/page.tsx",
  "app/api-docs/page.tsx",
  "app/signin/page.tsx",
  "app/page.tsx",
];

/**
 * Every forbidden thing the browser loads for these pages, with the import chain that reaches it.
 * Server components may import anything; from the first "use client" module on, an import is
 * bundled for the browser, and so is everything it imports.
 */
const forbiddenReaches = (pages: readonly string[]): string[] => {
  const chains = new Map<string, string[]>();
  const queue: { file: string; inBrowser: boolean; chain: string[] }[] = pages.map((file) => ({ file, inBrowser: false, chain: [file] }));
  const found: string[] = [];
  while (queue.length > 0) {
    const { file, chain, ...from } = queue.shift() ?? { file: "", inBrowser: false, chain: [] };
    const inBrowser = from.inBrowser || isClientModule(file);
    const key = `${inBrowser ? "browser" : "server"}:${file}`;
    if (chains.has(key)) continue;
    chains.set(key, chain);
    for (const specifier of runtimeImports(fs.readFileSync(path.join(root, file), "utf8"))) {
      const target = resolve(file, specifier);
      if (target === null) continue;
      if ("packageName" in target) {
        if (inBrowser && FORBIDDEN_PACKAGES.has(target.packageName)) found.push([...chain, target.packageName].join(" → "));
        continue;
      }
      if (inBrowser && (FORBIDDEN_MODULES.includes(target.file) || isOperationModule(target.file))) {
        found.push([...chain, target.file].join(" → "));
        continue;
      }
      queue.push({ file: target.file, inBrowser, chain: [...chain, target.file] });
    }
  }
  return [...new Set(found)];
};

describe("the browser bundle of the pages bench:ui measures", () => {
  it("reaches neither zod nor an operation's server part", () => {
    expect(forbiddenReaches(MEASURED_PAGES)).toEqual([]);
  });

  it("would name the chain that reaches one (the check itself works)", () => {
    // The account page's forms share zod schemas with their routes (lib/users/schemas.ts): not a measured page.
    expect(forbiddenReaches(["app/(console)/account/page.tsx"]).some((chain) => chain.endsWith("→ zod"))).toBe(true);
  });

  it("lets server components import the registry", () => {
    expect(forbiddenReaches(["app/page.tsx"])).toEqual([]);
  });
});
