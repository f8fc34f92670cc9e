import fs from "node:fs";
import path from "node:path";
import type { Queryable } from "@/lib/db/client";
import { hashPassword, randomPassword } from "./passwords";
import { countUsers, createUser, EmailTakenError, upsertAdmin } from "./repository";

export const INITIAL_ADMIN_EMAIL = "admin@localhost";

export type BootstrapResult =
  | { kind: "configured"; userId: string; email: string }
  | { kind: "generated"; userId: string; email: string; password: string; file: string }
  /** `file`: where the first admin's generated password was saved, while that file is there. */
  | { kind: "existing"; file: string | null };

const initialAdminFile = (dataDir: string): string => path.join(dataDir, "initial-admin.txt");

const existing = (dataDir: string): BootstrapResult => {
  const file = initialAdminFile(dataDir);
  return { kind: "existing", file: fs.existsSync(file) ? file : null };
};

/**
 * The first administrator: ADMIN_EMAIL + ADMIN_PASSWORD create or update it at every start.
 * Without them, an empty database gets admin@localhost with a random password, written once
 * to DATA_DIR/initial-admin.txt (0600). There is no default password anywhere.
 */
export const bootstrapAdmin = async (
  db: Queryable,
  options: { email?: string; password?: string; dataDir: string },
): Promise<BootstrapResult> => {
  if (options.email && options.password) {
    const admin = await upsertAdmin(db, options.email, await hashPassword(options.password));
    return { kind: "configured", userId: admin.id, email: admin.email };
  }
  if ((await countUsers(db)) > 0) return existing(options.dataDir);
  const password = randomPassword();
  let userId: string;
  try {
    ({ id: userId } = await createUser(db, {
      email: INITIAL_ADMIN_EMAIL,
      name: "Administrator",
      role: "admin",
      passwordHash: await hashPassword(password),
      creditAllowance: 0,
    }));
  } catch (error) {
    if (error instanceof EmailTakenError) return existing(options.dataDir);
    throw error;
  }
  const file = initialAdminFile(options.dataDir);
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `email: ${INITIAL_ADMIN_EMAIL}\npassword: ${password}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { kind: "generated", userId, email: INITIAL_ADMIN_EMAIL, password, file };
};
