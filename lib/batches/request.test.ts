import { describe, expect, it } from "vitest";
import { v1BatchRequest } from "@/lib/api/v1-batches";
import { consoleBatchRequest } from "@/lib/console-api/batch-request";
import { registry } from "@/lib/operations";
import { batchOperationIds } from "./request";

/** The batch request is one set of rules; the console and /v1 word a broken rule each in their own voice. */
const firstIssue = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) => {
  const issue = result.error?.issues[0];
  return issue === undefined ? null : `${issue.path.join(".")}: ${issue.message}`;
};

describe("the batch request", () => {
  it("names the registry's batch operations, in registry order", () => {
    expect(batchOperationIds()).toEqual(registry.filter((operation) => operation.batch !== undefined).map((operation) => operation.id));
    expect(v1BatchRequest.shape.operation.description).toBe(`The operation id: ${batchOperationIds().slice(0, -1).join(", ")} or ${batchOperationIds().at(-1)}.`);
  });

  it("breaks the same rules on both edges, worded for each", () => {
    const body = { operation: "event_details", inputs: [] as string[], maxCredits: 10 };
    expect(firstIssue(consoleBatchRequest.safeParse(body))).toBe("inputs: Give at least one input.");
    expect(firstIssue(v1BatchRequest.safeParse(body))).toBe("inputs: give at least one input");
    expect(firstIssue(consoleBatchRequest.safeParse({ ...body, inputs: ["1"], maxCredits: 1.5 }))).toBe("maxCredits: maxCredits must be a whole number of credits.");
    expect(firstIssue(v1BatchRequest.safeParse({ ...body, inputs: ["1"], maxCredits: 1.5 }))).toBe("maxCredits: maxCredits must be a whole number of credits");
    expect(firstIssue(consoleBatchRequest.safeParse({ ...body, inputs: ["1"], options: { pages: "some" } }))).toBe('options.pages: pages must be "first" or "all".');
  });

  it("takes maxAgeS and webhookUrl under /v1 only: the console drops them with any unknown field, /v1 refuses unknown fields", () => {
    const body = { operation: "followers", inputs: ["1"], maxCredits: 10, options: { maxAgeS: 60 }, webhookUrl: "https://example.test/hook" };
    expect(consoleBatchRequest.parse({ ...body, note: "x" })).toEqual({ operation: "followers", inputs: ["1"], maxCredits: 10, options: { pages: "first" } });
    expect(v1BatchRequest.parse(body)).toEqual({ ...body, options: { pages: "first", maxAgeS: 60 } });
    expect(v1BatchRequest.safeParse({ ...body, note: "x" }).error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["note"] });
    expect(firstIssue(consoleBatchRequest.safeParse({ operation: "followers", inputs: ["1"] }))).toBe("maxCredits: maxCredits must be a whole number of credits.");
    expect(v1BatchRequest.safeParse({ operation: "followers", inputs: ["1"] }).success).toBe(true);
  });
});
