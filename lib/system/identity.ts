import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import packageJson from "@/package.json";
import { env } from "@/lib/env";
import { instanceName } from "@/lib/log";

/**
 * Who this instance is on the system page: its name (INSTANCE_ID, or host:port), the id of this
 * start of it, when it started and what it runs. Made once per process and kept on globalThis,
 * so that the publisher (started by instrumentation) and the console API's route bundle agree.
 */
export type InstanceIdentity = {
  name: string;
  startId: string;
  startedAtMs: number;
  version: string;
  buildId: string | null;
  nodeVersion: string;
};

/** Next's id of the build being served; none outside a build (tests, `next dev`). */
const readBuildId = (root: string): string | null => {
  try {
    return fs.readFileSync(path.join(root, ".next", "BUILD_ID"), "utf8").trim() || null;
  } catch {
    return null;
  }
};

const holder = globalThis as typeof globalThis & { __socialLookupInstance?: InstanceIdentity };

export const instanceIdentity = (): InstanceIdentity => {
  if (holder.__socialLookupInstance === undefined) {
    const config = env();
    holder.__socialLookupInstance = {
      name: instanceName(config, os.hostname()),
      startId: crypto.randomBytes(4).toString("hex"),
      // The process's start, not this module's: its counters count from then.
      startedAtMs: Math.round(performance.timeOrigin),
      version: packageJson.version,
      buildId: readBuildId(process.cwd()),
      nodeVersion: process.version,
    };
  }
  return holder.__socialLookupInstance;
};
