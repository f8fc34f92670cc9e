import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  EVENT_PAGE_PATH as serverEventPagePath,
  isEventSiteHost as serverIsEventSiteHost,
  MAX_PARAM_LENGTH as serverMaxParamLength,
  paramSchemas,
  type ParamName,
} from "@/lib/api/params";
import { acceptsParam, EVENT_PAGE_PATH, isEventSiteHost, MAX_PARAM_LENGTH, paramRules } from "./param-rules";

/**
 * The browser's parameter rules (zod-free) and the server's zod schemas are two statements of one
 * rule: they must give the same answer for every value, or the console would let through an input
 * /v1 refuses (a paid-for 400 never happens, but the user sees a server error instead of a hint).
 */
const names = Object.keys(paramSchemas) as ParamName[];

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

describe("parameter rules in the browser (lib/operations/param-rules.ts)", () => {
  it("cover exactly the parameters lib/api/params.ts declares", () => {
    expect(Object.keys(paramRules).sort()).toEqual([...names].sort());
  });

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

  it("reads event page URLs and hosts as the server does", () => {
    expect(MAX_PARAM_LENGTH).toBe(serverMaxParamLength);
    expect([EVENT_PAGE_PATH.source, EVENT_PAGE_PATH.flags]).toEqual([serverEventPagePath.source, serverEventPagePath.flags]);
    const hostLists = [[], ["*"], ["events.demo.test"], ["events.demo.test", "other.test"]];
    const hosts = ["events.demo.test", "WWW.Events.Demo.Test", "m.events.demo.test", "www.m.events.demo.test", "evil.test", "events.demo.test:443"];
    for (const list of hostLists) {
      for (const host of hosts) {
        expect({ host, list, accepted: isEventSiteHost(host, list) }).toEqual({ host, list, accepted: serverIsEventSiteHost(host, list) });
      }
    }
  });
});
