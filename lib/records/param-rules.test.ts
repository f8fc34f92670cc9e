import { describe, expect, it } from "vitest";
import { z } from "zod";
import { paramSchemas } from "@/lib/records/params";
import { acceptsParam, paramRules, type ParamName } from "./param-rules";

/**
 * The browser checks a parameter with acceptsParam on its rule; /v1 with the zod schema
 * lib/records/params.ts builds from the same rule. Both readings must give the same answer for every
 * value, or the console would let through an input /v1 refuses (the user would see a server error
 * instead of a hint) — and the schema must document the rule as it is.
 */
const names = Object.keys(paramRules) as ParamName[];

const probes = [
  "",
  "0",
  "1",
  "000",
  "42",
  "999999",
  "1000000",
  "1".repeat(20),
  "1".repeat(21),
  "-1",
  "1.5",
  " 1",
  "abc",
  "VXNlcjoyMDAwMDAwMDAy",
  "MjU.c2lnbmVk",
  "a/b+c=_-",
  "urn:li:member:3000000001",
  "urn:li:member:",
  "urn:li:company_page:abc-DEF_1",
  `urn:li:member:${"x".repeat(100)}`,
  `urn:li:member:${"x".repeat(101)}`,
  `urn:li:${"m".repeat(200)}:1`,
  "https://events.demo.test/events/1000000000000001/",
  "x".repeat(200),
  "x".repeat(201),
  "x".repeat(500),
  "x".repeat(501),
  "x".repeat(2048),
  "x".repeat(2049),
  "1\n",
  "١٢٣",
];

describe("parameter rules in the browser (lib/records/param-rules.ts)", () => {
  it.each(names)("%s: accepts and refuses the same values as its zod schema", (name) => {
    for (const value of probes) {
      expect({ value, accepted: acceptsParam(name, value) }).toEqual({ value, accepted: paramSchemas[name].safeParse(value).success });
    }
  });

  it.each(names)("%s: states the pattern and length limit its zod schema documents", (name) => {
    const documented = z.toJSONSchema(paramSchemas[name]);
    const rule: { maxLength?: number; pattern?: RegExp } = paramRules[name];
    expect({ maxLength: rule.maxLength, pattern: rule.pattern?.source }).toEqual({
      maxLength: documented.maxLength,
      pattern: documented.pattern,
    });
  });
});
