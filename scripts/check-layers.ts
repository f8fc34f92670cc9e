import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * The layer check `npm test` runs: dependency-cruiser with .dependency-cruiser.cjs over the
 * product's code. Prints every violation and the counts — imports that run back up the layers,
 * module cycles, cycles between folders — and exits 1 when any is found.
 *
 *   npx tsx scripts/check-layers.ts          check (exit 0: none)
 *   npx tsx scripts/check-layers.ts --draw   print the layers as docs/architecture.md shows them
 */
type Layer = { name: string; what: string; folders: string[] };
type Violation = { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] };
type CruiseOutput = {
  modules: { source: string; dependencies: { resolved: string; dependencyTypes: string[] }[] }[];
  summary: { violations: Violation[]; totalCruised: number; totalDependenciesCruised: number };
};

const root = path.resolve(import.meta.dirname, "..");
const CONFIG = ".dependency-cruiser.cjs";
export const SCANNED = ["lib", "app", "components", "scripts", "server.ts", "clients"];

const require = createRequire(import.meta.url);

export const layersOf = (): { layers: Layer[]; typeOnlyUpward: { from: string; to: string; reason: string }[] } => {
  const config = require(path.join(root, CONFIG)) as { layers: Layer[]; typeOnlyUpward: { from: string; to: string; reason: string }[] };
  return { layers: config.layers, typeOnlyUpward: config.typeOnlyUpward };
};

/** The layers, lowest at the bottom, as a fenced block for docs/architecture.md. */
export const drawLayers = (): string => {
  const { layers } = layersOf();
  const width = Math.max(...layers.map((layer) => layer.name.length));
  const lines = [...layers].reverse().flatMap((layer, index) => [
    ...(index === 0 ? [] : ["   ↓ imports only what is below"]),
    `${layer.name.padEnd(width)}  ${layer.folders.join("  ")}`,
    `${" ".repeat(width)}  ${layer.what}`,
  ]);
  return ["```", ...lines, "```"].join("\n");
};

const cruise = (): CruiseOutput => {
  const bin = path.join(root, "node_modules", ".bin", "depcruise");
  const text = execFileSync(bin, [...SCANNED, "--config", CONFIG, "--output-type", "json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(text) as CruiseOutput;
};

/** The folder of a module as the layers name it: lib/<folder>, a single lib file, or a top-level folder. */
const folderOf = (file: string): string => {
  const parts = file.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : file;
  return parts[0] ?? file;
};

/** Pairs of folders that reach each other (strongly connected components of the folder graph, size > 1). */
const folderCycles = (output: CruiseOutput): string[][] => {
  const edges = new Map<string, Set<string>>();
  for (const module of output.modules) {
    if (module.source.includes("node_modules")) continue;
    for (const dependency of module.dependencies) {
      if (dependency.resolved.includes("node_modules") || dependency.dependencyTypes.includes("core")) continue;
      const from = folderOf(module.source);
      const to = folderOf(dependency.resolved);
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return components;
};

const main = () => {
  if (process.argv.includes("--draw")) {
    console.log(drawLayers());
    return;
  }
  const output = cruise();
  const violations = output.summary.violations;
  for (const violation of violations) {
    const via = violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name).join(" → ")})` : "";
    console.log(`  ${violation.rule.name}: ${violation.from} → ${violation.to}${via}`);
  }
  const upward = violations.filter((violation) => violation.rule.name.startsWith("upward-")).length;
  const circular = violations.filter((violation) => violation.rule.name === "no-circular").length;
  const cycles = folderCycles(output);
  for (const cycle of cycles) console.log(`  folder cycle: ${cycle.join(" ↔ ")}`);
  const { typeOnlyUpward } = layersOf();
  console.log(
    `layers: ${output.summary.totalCruised} modules, ${output.summary.totalDependenciesCruised} imports; ` +
      `${upward} import(s) running back up, ${circular} module cycle(s), ${cycles.length} folder cycle(s), ` +
      `${violations.length} violation(s) in all; ${typeOnlyUpward.length} type-only upward import(s) allowed by name`,
  );
  if (violations.length > 0 || cycles.length > 0) process.exitCode = 1;
};

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();
