/**
 * The layers of Social Lookup, lowest first, and the rules that keep them: a module may import
 * its own folder, and folders listed before its own — never one listed after it. Because the
 * folders form one order, two folders can never import each other (no folder cycles), and no
 * module may be part of an import cycle. `npm test` runs this check (scripts/check-layers.ts);
 * docs/architecture.md draws the same layers from `layers` below (`npx tsx scripts/check-layers.ts
 * --draw` prints them).
 *
 * A type-only import that runs back up is allowed only where `typeOnlyUpward` names it with a
 * reason. Test files (*.test.ts, tests/, e2e/) are outside the rules: a test may reach anything.
 */

/** Lowest first. Each entry: a layer, what it is, and its folders (or single files) in order. */
const layers = [
  {
    name: "foundation",
    what: "the environment, the log, metrics and traces, the SQL client, secrets, HTTP helpers with no product knowledge, and the small stores every domain writes to",
    folders: ["lib/env.ts", "lib/log.ts", "lib/metrics", "lib/tracing", "lib/errors.ts", "lib/db", "lib/security", "lib/http", "lib/job-lease.ts", "lib/export", "lib/audit", "lib/ratelimit", "lib/credits"],
  },
  {
    name: "records",
    what: "the data model: record kinds, record schemas, query parameters and their errors (no HTTP)",
    folders: ["lib/records"],
  },
  {
    name: "sources",
    what: "one source engine: the record store, the upstream provider behind its cache, single-flight, suppression",
    folders: ["lib/connectors"],
  },
  {
    name: "operations",
    what: "one folder per operation, and the registry that lists them",
    folders: ["lib/operations"],
  },
  {
    name: "domains",
    what: "one job each, no HTTP: privacy, imports, users, workspaces and their roles, alerts, keys, usage, the demo data",
    folders: ["lib/privacy", "lib/import", "lib/users", "lib/workspaces", "lib/alerts", "lib/keys", "lib/usage", "lib/demo"],
  },
  {
    name: "database",
    what: "the app's database: the numbered migrations with the domains' SQL, opened once per process",
    folders: ["lib/database.ts"],
  },
  {
    name: "batches",
    what: "bulk lookups at a key's pace",
    folders: ["lib/batches"],
  },
  {
    name: "services",
    what: "the process's wiring: the request pipeline's services, readiness, the system page's snapshots, background jobs, health",
    folders: ["lib/services.ts", "lib/readiness.ts", "lib/system", "lib/jobs.ts", "lib/health.ts"],
  },
  {
    name: "edges",
    what: "how the outside reaches the domains: sign-in, /v1, OpenAPI, snippets, MCP, the console API, the process front, CLIs, the browser's queries",
    folders: ["lib/auth", "lib/api", "lib/openapi", "lib/snippets", "lib/mcp", "lib/console-api", "lib/front", "lib/cli", "lib/query"],
  },
  {
    name: "app",
    what: "Next.js pages and route handlers, React components, scripts, the server",
    folders: ["components", "app", "scripts", "server.ts"],
  },
];

/** Type-only imports that run back up, each with its reason: none today. */
const typeOnlyUpward = [];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A folder's modules (`lib/api` → lib/api/…), or a single file's. */
const pathOf = (folder) => (folder.endsWith(".ts") ? `^${escape(folder)}$` : `^${escape(folder)}/`);

const order = layers.flatMap((layer) => layer.folders.map((folder) => ({ folder, layer: layer.name })));

const upwardRules = order.slice(0, -1).map(({ folder, layer }, index) => {
  const above = order.slice(index + 1).map((entry) => pathOf(entry.folder));
  const allowed = typeOnlyUpward.filter((entry) => entry.from === folder);
  return {
    name: `upward-from-${folder.replace(/[/.]/g, "-")}`,
    comment: `${folder} (${layer}) imports only its own folder and those listed before it in .dependency-cruiser.cjs`,
    severity: "error",
    from: { path: pathOf(folder) },
    to: {
      path: above,
      ...(allowed.length > 0 ? { pathNot: allowed.map((entry) => pathOf(entry.to)) } : {}),
    },
  };
});

module.exports = {
  forbidden: [
    ...upwardRules,
    {
      name: "no-circular",
      comment: "no module is part of an import cycle",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "clients-standalone",
      comment: "clients/ (the SDK and its command line, a package of their own, generated from the registry) imports only its own files and Node's built-ins, never the app",
      severity: "error",
      from: { path: "^clients/" },
      to: { pathNot: "^clients/", dependencyTypesNot: ["core"] },
    },
    {
      name: "unlayered",
      comment: "every module of lib/ belongs to a layer of .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^lib/", pathNot: order.map((entry) => pathOf(entry.folder)) },
      to: {},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["\\.test\\.tsx?$", "^tests/", "^e2e/", "^node_modules/", "\\.next/", "^clients/typescript/dist/"] },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] },
  },
};

// Not part of dependency-cruiser's schema: read by scripts/check-layers.ts to draw the layers.
Object.defineProperty(module.exports, "layers", { value: layers, enumerable: false });
Object.defineProperty(module.exports, "typeOnlyUpward", { value: typeOnlyUpward, enumerable: false });
