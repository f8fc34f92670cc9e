import path from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/**
 * The only reader of process.env. Everything configurable is parsed here once, with a clear
 * error that names the variable at fault; the rest of the code imports `env`.
 */
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === "" ? undefined : value))
    .refine(
      (value) => value === undefined || protocols.some((protocol) => value.startsWith(protocol)),
      { message: `must start with ${protocols.join(" or ")}` },
    );

const hostList = z
  .string()
  .trim()
  .default("events.demo.test")
  .transform((value) =>
    value
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== ""),
  )
  .refine((hosts) => hosts.length > 0, { message: "must list at least one host or *" })
  .refine((hosts) => hosts.every((host) => host === "*" || /^[a-z0-9.-]+(:\d+)?$/.test(host)), {
    message: "must be a comma-separated list of host names, or *",
  });

/** `https://app.example.com[:port]` exactly, as a browser sends it in Origin. */
const isOrigin = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
};

/**
 * Where alert webhooks may be delivered besides public addresses: unset (public only),
 * "private" (any address of this machine's networks), or a comma-separated list of networks in
 * CIDR notation (or single addresses) for internal receivers.
 */
const allowedNetworks = z
  .string()
  .trim()
  .default("")
  .transform((value) => value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== ""))
  .refine(
    (entries) =>
      (entries.length === 1 && entries[0] === "private") ||
      entries.every((entry) => ipaddr.isValidCIDR(entry) || ipaddr.isValid(entry)),
    { message: 'must be "private" or a comma-separated list of networks such as 10.1.0.0/16,fd12::/64' },
  )
  .transform((entries) => ({
    allowPrivate: entries[0] === "private",
    allowedCidrs: entries
      .filter((entry) => entry !== "private")
      .map((entry) => (entry.includes("/") ? entry : `${entry}/${ipaddr.parse(entry).kind() === "ipv4" ? 32 : 128}`)),
  }));

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /**
   * The interface the server listens on. Loopback by default — `localhost`, both 127.0.0.1 and
   * ::1, so the printed http://localhost:PORT works whichever the resolver puts first — and a
   * first `npm start` is not reachable from the network until the operator says so (0.0.0.0 or
   * :: for all interfaces; the container image sets 0.0.0.0).
   */
  HOST: z
    .string()
    .trim()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:_-]+$/, "must be an IP address or a host name")
    .default("localhost"),
  DATA_DIR: z.string().trim().min(1).default("./.data"),
  DATABASE_URL: optionalUrl(["postgres://", "postgresql://"]),
  REDIS_URL: optionalUrl(["redis://", "rediss://"]),
  AUTH_SECRET: z
    .string()
    .optional()
    .refine((value) => value === undefined || value.length >= 32, {
      message: "must be at least 32 characters (or unset, to generate one into DATA_DIR)",
    }),
  EVENTSITE_HOSTS: hostList,
  /** The app's own origin as browsers reach it; demo image URLs and sign-in links use it. */
  PUBLIC_URL: optionalUrl(["http://", "https://"]),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(12, "must be at least 12 characters").max(200).optional(),
  OIDC_ISSUER: optionalUrl(["https://", "http://"]),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** Where lookups are answered from: the record store, an upstream provider, or the store first. */
  DATA_SOURCE: z.enum(["store", "upstream", "store-then-upstream"]).default("store"),
  UPSTREAM_BASE_URL: optionalUrl(["https://", "http://"]),
  UPSTREAM_API_KEY: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === "" ? undefined : value)),
  /** shared: one provider key for everybody; per-user: each user's own key, set on their settings page. */
  UPSTREAM_KEY_MODE: z.enum(["shared", "per-user"]).default("shared"),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Provider calls in flight per instance (batch lookups take at most three quarters of them). */
  UPSTREAM_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(256),
  UPSTREAM_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** The longest wait before a retry (a provider's Retry-After above it answers our 429 instead). */
  UPSTREAM_MAX_RETRY_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  UPSTREAM_BREAKER_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),
  UPSTREAM_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  CACHE_TTL_EVENTS_S: z.coerce.number().int().min(0).max(31_536_000).default(86_400),
  CACHE_TTL_FOLLOWERS_S: z.coerce.number().int().min(0).max(31_536_000).default(3600),
  CACHE_TTL_PUBLICATIONS_S: z.coerce.number().int().min(0).max(31_536_000).default(86_400),
  /** full: a cache hit costs the operation's price; free: cache hits cost nothing. */
  CACHE_HIT_CREDITS: z.enum(["full", "free"]).default("full"),
  /**
   * Proxies the operator runs in front of the app that append to X-Forwarded-For (a load
   * balancer: 1). 0, the default: clients connect directly, the socket peer is the client and
   * X-Forwarded-For is ignored. With N, the client address is the entry N places from the right;
   * entries further left are whatever the client sent and are never trusted.
   */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Origins whose browser pages may call the keyed /v1 operations (comma-separated, e.g.
   * https://app.example.com). Empty by default: a key is a secret, not for other sites' pages.
   * /v1/openapi.json is readable from any origin regardless.
   */
  CORS_ALLOWED_ORIGINS: z
    .string()
    .trim()
    .default("")
    .transform((value) => value.split(",").map((origin) => origin.trim()).filter((origin) => origin !== ""))
    .refine((origins) => origins.every(isOrigin), {
      message: "must be a comma-separated list of origins such as https://app.example.com (scheme, host, optional port; no path, no *)",
    }),
  WEBHOOK_ALLOWED_NETWORKS: allowedNetworks,
  /** Imports: a larger record (one NDJSON line, one array element) is reported as bad and skipped. */
  IMPORT_MAX_RECORD_BYTES: z.coerce.number().int().min(1024).max(1024 ** 3).default(16 * 1024 * 1024),
  /** Usage exports and batch-result downloads that stream at once per process; the rest wait briefly, then 429. */
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  DB_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /**
   * json: one JSON object a line (what log collectors read); pretty: readable lines for a person;
   * auto, the default: pretty when stdout is a terminal, json otherwise.
   */
  LOG_FORMAT: z.enum(["auto", "json", "pretty"]).default("auto"),
  /** This instance's name in logs, traces and the system page; unset: the host name and the port. */
  INSTANCE_ID: z
    .string()
    .trim()
    .max(100)
    .regex(/^[A-Za-z0-9._:-]*$/, "must be letters, digits and . _ : -")
    .optional()
    .transform((value) => (value === "" ? undefined : value)),
  /**
   * on: someone invited at an address that has no account makes one by accepting the invitation
   * (setting a password). off, the default: accounts come from the service administrator; such an
   * invitation is accepted once the administrator made the account (docs/teams.md "Who makes accounts").
   */
  INVITATION_SIGNUP: z.enum(["on", "off"]).default("off"),
  /** off: nothing is counted (/metrics answers 404, the system page has no figures). */
  METRICS: z.enum(["on", "off"]).default("on"),
  /** A port of its own for GET /metrics (on METRICS_HOST); unset, the default: no such listener. */
  METRICS_PORT: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === undefined || value === "" ? undefined : value))
    .pipe(z.coerce.number<string | undefined>().int().min(1).max(65535).optional()),
  /** The interface of the METRICS_PORT listener: loopback unless the operator says otherwise. */
  METRICS_HOST: z.string().trim().min(1).max(253).regex(/^[A-Za-z0-9.:_-]+$/, "must be an IP address or a host name").default("127.0.0.1"),
  /** With it, GET /metrics on the main port answers a scraper that sends `Authorization: Bearer <token>`; unset: 404 there. */
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((value) => (value === "" ? undefined : value))
    .refine((value) => value === undefined || value.length >= 16, { message: "must be at least 16 characters (or unset)" }),
  /** On SIGTERM: how long requests in flight may take to finish before the process exits anyway. */
  SHUTDOWN_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(25),
  /** On SIGTERM: how long /readyz answers 503 while still serving, so balancers stop sending before the listener closes. */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  /** OpenTelemetry traces: the OTLP/HTTP collector (http://collector:4318); unset, the default: no traces, no cost. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(["http://", "https://"]),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(100).default("social-lookup"),
  /** Batch lookups (lib/batches): accepted inputs per batch. */
  BATCH_MAX_INPUTS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Batches of one user that run at the same time (the others wait, queued). */
  BATCH_MAX_RUNNING_PER_USER: z.coerce.number().int().min(1).max(1000).default(2),
  /** Batches one server process runs at the same time. */
  BATCH_MAX_RUNNING_PER_INSTANCE: z.coerce.number().int().min(0).max(1000).default(4),
  /** Pages per input when a batch asks for "all pages" of publications (and the most for followers). */
  BATCH_MAX_PAGES: z.coerce.number().int().min(1).max(10_000).default(100),
  /** How long an instance holds a batch without renewing; after it another instance takes over. */
  BATCH_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** A request head (request line and headers) must arrive complete within this; else 408 and closed. */
  HEADERS_TIMEOUT_S: z.coerce.number().int().min(1).max(300).default(15),
  /** A whole request (head and body) must arrive within this (uploads included). */
  REQUEST_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(300),
  /** An idle keep-alive connection is closed after this. */
  KEEP_ALIVE_TIMEOUT_S: z.coerce.number().int().min(1).max(300).default(5),
  /** Open connections per instance; beyond, a new connection is closed at once. Keep below `ulimit -n`. */
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Open connections per client address when TRUSTED_PROXY_HOPS is 0; beyond, closed at once. */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(256),
  /** Retention (lib/privacy/retention.ts): batch result pages, per-request usage rows, upstream-cached records. */
  BATCH_RESULTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  UPSTREAM_CACHE_MAX_AGE_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  /** Where npm test keeps further Node.js lines (scripts/test.sh); npm start runs on one from there when the machine's node is too old. */
  NODE_CACHE_DIR: z.string().trim().optional(),
  XDG_CACHE_HOME: z.string().trim().optional(),
  /**
   * The most lookups one batch keeps in flight (inputs side by side; the pages of one input in
   * order). Unset, the default: as many as its key's rate needs at the latency measured.
   */
  BATCH_CONCURRENCY: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === undefined || value === "" ? undefined : value))
    .pipe(z.coerce.number<string | undefined>().int().min(1).max(1000).optional()),
  /** Batches one user may have queued or running; creating (or resuming) one more answers 429. */
  BATCH_MAX_OPEN_PER_USER: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Inputs not yet done over one user's unfinished batches; a batch that would pass it answers 429. */
  BATCH_MAX_OPEN_INPUTS_PER_USER: z.coerce.number().int().min(1).max(100_000_000).default(200_000),
  /** Active API keys one user may hold; issuing one more is refused. */
  MAX_KEYS_PER_USER: z.coerce.number().int().min(1).max(1_000_000).default(100),
});

export type Env = z.infer<typeof schema> & {
  dataDir: string;
  publicUrl: string;
  oidc: { issuer: string; clientId: string; clientSecret: string } | null;
};

export class EnvError extends Error {}

/** Every variable the application reads; deployment files may set only these (checked by a test). */
export const envVariableNames = (): string[] => [...Object.keys(schema.shape), "NEXT_RUNTIME"];

export const parseEnv = (source: Record<string, string | undefined>): Env => {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues
      .map((issue) => `  ${issue.path.join(".") || "(environment)"}: ${issue.message}`)
      .join("\n");
    throw new EnvError(`Invalid environment configuration:\n${problems}`);
  }
  const publicUrl = (result.data.PUBLIC_URL ?? `http://localhost:${result.data.PORT}`).replace(/\/+$/, "");
  const { ADMIN_EMAIL, ADMIN_PASSWORD, OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = result.data;
  if ((ADMIN_EMAIL === undefined) !== (ADMIN_PASSWORD === undefined)) {
    throw new EnvError("Invalid environment configuration:\n  ADMIN_EMAIL / ADMIN_PASSWORD: set both or neither");
  }
  if (result.data.HEADERS_TIMEOUT_S > result.data.REQUEST_TIMEOUT_S) {
    throw new EnvError("Invalid environment configuration:\n  HEADERS_TIMEOUT_S: must not exceed REQUEST_TIMEOUT_S");
  }
  const oidcParts = [OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET];
  if (oidcParts.some((part) => part !== undefined) && oidcParts.some((part) => part === undefined)) {
    throw new EnvError("Invalid environment configuration:\n  OIDC_ISSUER / OIDC_CLIENT_ID / OIDC_CLIENT_SECRET: set all three or none");
  }
  const oidc =
    OIDC_ISSUER && OIDC_CLIENT_ID && OIDC_CLIENT_SECRET
      ? { issuer: OIDC_ISSUER.replace(/\/+$/, ""), clientId: OIDC_CLIENT_ID, clientSecret: OIDC_CLIENT_SECRET }
      : null;
  return { ...result.data, dataDir: path.resolve(result.data.DATA_DIR), publicUrl, oidc };
};

let cached: Env | undefined;

/** The parsed environment of this process, read on first use. */
export const env = (): Env => {
  cached ??= parseEnv(process.env);
  return cached;
};

/** The bounds of every cache TTL setting, in seconds: at most a year. */
const cacheTtlSchema = (defaultS: number) => z.coerce.number().int().min(0).max(31_536_000).default(defaultS);

/**
 * The cache TTL of a kind of record that declares its variable and default with its kind
 * (lib/records/kinds.ts `ttlDefaultS`) instead of a line of the schema above: read from the same
 * environment, checked with the same bounds, and refused with the same message shape.
 */
export const cacheTtlSeconds = (
  variable: `CACHE_TTL_${string}_S`,
  defaultS: number,
  source: Record<string, string | undefined> = process.env,
): number => {
  const result = cacheTtlSchema(defaultS).safeParse(source[variable]);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${variable}: ${issue.message}`).join("\n");
    throw new EnvError(`Invalid environment configuration:\n${problems}`);
  }
  return result.data;
};
