import fs from "node:fs";
import os from "node:os";
import { env } from "@/lib/env";
import { describeError, instanceName, log } from "@/lib/log";
import { installedTracer, installTracer } from "./spans";

/**
 * Turns traces on at process start when OTEL_EXPORTER_OTLP_ENDPOINT is set (server.ts, before
 * the front and Next are built), and flushes them at shutdown. Unset, nothing of OpenTelemetry
 * is imported: the SDK is behind the dynamic import below.
 */
const packageVersion = (): string => {
  try {
    const text = fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8");
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && "version" in parsed && typeof parsed.version === "string" ? parsed.version : "unknown";
  } catch {
    return "unknown";
  }
};

/** Where the collector is, for the log: no user name, password or query that its address might carry. */
const collectorForLog = (endpoint: string): string => {
  const url = new URL(endpoint);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
};

/** Whether traces are on (true also when they already were). */
export const startTracing = async (): Promise<boolean> => {
  if (installedTracer() !== undefined) return true;
  const config = env();
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined) return false;
  const { createSdkTracer } = await import("./sdk");
  installTracer(
    createSdkTracer({
      endpoint,
      serviceName: config.OTEL_SERVICE_NAME,
      serviceVersion: packageVersion(),
      instanceId: instanceName(config, os.hostname()),
    }),
  );
  log.info("traces on", { collector: collectorForLog(endpoint), serviceName: config.OTEL_SERVICE_NAME });
  return true;
};

/** Exports the spans still buffered and stops tracing; nothing to do when traces are off. */
export const stopTracing = async (): Promise<void> => {
  const tracer = installedTracer();
  if (tracer === undefined) return;
  installTracer(undefined);
  await tracer.shutdown().catch((error: unknown) => log.warn("traces: the last export failed", { error: describeError(error) }));
};
