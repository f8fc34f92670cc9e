import path from "node:path";
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

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
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
  DB_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type Env = z.infer<typeof schema> & { dataDir: string; publicUrl: string };

export class EnvError extends Error {}

export const parseEnv = (source: Record<string, string | undefined>): Env => {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues
      .map((issue) => `  ${issue.path.join(".") || "(environment)"}: ${issue.message}`)
      .join("\n");
    throw new EnvError(`Invalid environment configuration:\n${problems}`);
  }
  const publicUrl = (result.data.PUBLIC_URL ?? `http://localhost:${result.data.PORT}`).replace(/\/+$/, "");
  return { ...result.data, dataDir: path.resolve(result.data.DATA_DIR), publicUrl };
};

let cached: Env | undefined;

/** The parsed environment of this process, read on first use. */
export const env = (): Env => {
  cached ??= parseEnv(process.env);
  return cached;
};
