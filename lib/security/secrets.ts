import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { secureDataDir } from "@/lib/db/data-dir";
import { env } from "@/lib/env";

/**
 * AUTH_SECRET signs API keys and sessions. When it is not configured, one is generated once
 * into DATA_DIR/auth-secret (mode 0600) so that keys survive restarts.
 */
export const readOrCreateSecret = (dataDir: string): string => {
  const file = path.join(dataDir, "auth-secret");
  secureDataDir(dataDir);
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = fs.readFileSync(file, "utf8").trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters`);
  return secret;
};

let cached: string | undefined;

export const authSecret = (): string => {
  if (cached === undefined) {
    const config = env();
    cached = config.AUTH_SECRET ?? readOrCreateSecret(config.dataDir);
  }
  return cached;
};

/** A 32-byte key for one purpose, derived from AUTH_SECRET (HKDF-SHA256). */
export const derivedKey = (purpose: string): Buffer =>
  Buffer.from(crypto.hkdfSync("sha256", authSecret(), "social-lookup", purpose, 32));
