import { describe, expect, it } from "vitest";
import { limitParam } from "./query";

const messageOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues[0]?.message;

describe("the limit query parameter", () => {
  const limit = limitParam(200, 50);

  it("reads a whole number from 1 to the maximum, and falls back when absent", () => {
    expect(limit.parse("1")).toBe(1);
    expect(limit.parse("200")).toBe(200);
    expect(limit.parse(undefined)).toBe(50);
  });

  it("refuses everything else with a sentence naming the rule", () => {
    expect(messageOf(limit.safeParse("abc"))).toBe("limit must be a whole number.");
    expect(messageOf(limit.safeParse("1.5"))).toBe("limit must be a whole number.");
    expect(messageOf(limit.safeParse("0"))).toBe("limit must be at least 1.");
    expect(messageOf(limit.safeParse("201"))).toBe("limit can be at most 200.");
    expect(messageOf(limitParam(50, 10, "limit must be a number.").safeParse("abc"))).toBe("limit must be a number.");
  });
});
