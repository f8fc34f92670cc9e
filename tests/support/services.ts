import { createSettler } from "@/lib/credits/settle";
import type { DataConnector } from "@/lib/connectors/select";
import type { CursorCodec } from "@/lib/connectors/cursor";
import type { Db } from "@/lib/db/client";
import { createAuthenticator } from "@/lib/keys/authenticate";
import { createTokenVerifier } from "@/lib/keys/tokens";
import { createRateLimiter } from "@/lib/ratelimit/limiter";
import type { Services } from "@/lib/services";
import { createAccountReader } from "@/lib/usage/account-reader";

/** The pipeline's services over a test database and connector, as lib/services.ts wires them. */
export const testServices = (db: Db, deps: { connector: DataConnector; cursors: CursorCodec; secret: string }): Services => ({
  db: async () => db,
  authenticator: createAuthenticator({ db: async () => db, verify: createTokenVerifier(deps.secret), ttlMs: 1000 }),
  limiter: createRateLimiter({}),
  settler: createSettler(async () => db),
  accounts: createAccountReader(async () => db),
  connector: deps.connector,
  cursors: deps.cursors,
  eventSiteHosts: ["events.demo.test"],
});
