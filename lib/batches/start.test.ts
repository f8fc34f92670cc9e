import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { runnerSettings } from "./start";

/** The batch runner's lease owners name the instance as its log lines and traces do. */
describe("runnerSettings", () => {
  it("names the lease owner by INSTANCE_ID when it is set, not by the host name", () => {
    const config = parseEnv({ NODE_ENV: "test", INSTANCE_ID: "app-2", PORT: "3100" });
    expect(runnerSettings(config, "box").instanceName).toBe("app-2");
  });

  it("names it by host name and port without INSTANCE_ID", () => {
    const config = parseEnv({ NODE_ENV: "test", PORT: "3100" });
    expect(runnerSettings(config, "box").instanceName).toBe("box:3100");
  });

  it("takes the lease and capacity settings from the configuration", () => {
    const config = parseEnv({ NODE_ENV: "test", BATCH_LEASE_MS: "4000", BATCH_MAX_RUNNING_PER_USER: "3" });
    expect(runnerSettings(config, "box")).toMatchObject({ leaseMs: 4000, perUser: 3, pollMs: 1000 });
  });
});
