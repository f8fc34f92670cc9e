import { describe, expect, it } from "vitest";
import { nodeIdFor } from "@/lib/records/node-id";
import { canonicalNumber, canonicalSubject, subjectKey } from "./canonical-subject";

describe("the canonical spelling of a subject", () => {
  it("reads an event id without its leading zeros, and an event page URL as its id", () => {
    for (const spelling of [
      "1000000000000003",
      "01000000000000003",
      "00001000000000000003",
      " 1000000000000003 ",
      "https://events.demo.test/events/1000000000000003/",
      "https://www.events.demo.test/events/01000000000000003?ref=mail",
      "http://m.events.demo.test/events/1000000000000003",
    ]) {
      expect(canonicalSubject("event", spelling), spelling).toBe("1000000000000003");
    }
    expect(canonicalSubject("event", "0")).toBe("0");
    expect(canonicalSubject("event", "000")).toBe("0");
    for (const other of ["", "abc", "1e3", "-1", "1".repeat(21), "https://events.demo.test/people/1/", "ftp://x.test/events/1/", "urn:li:member:1"]) {
      expect(canonicalSubject("event", other), other).toBeNull();
    }
  });

  it("reads a pin-board user id without its leading zeros, and a node id as the user it encodes", () => {
    for (const spelling of ["2000000001", "02000000001", nodeIdFor("2000000001"), nodeIdFor("002000000001")]) {
      expect(canonicalSubject("pin_user", spelling), spelling).toBe("2000000001");
    }
    for (const other of ["", "user", nodeIdFor("abc"), "VXNlcjo="]) expect(canonicalSubject("pin_user", other), other).toBeNull();
  });

  it("reads a URN's prefix and type in any case, and its id of digits without leading zeros", () => {
    for (const spelling of [
      "urn:li:member:3000000001",
      "urn:li:MEMBER:3000000001",
      "urn:li:Member:3000000001",
      "URN:LI:MEMBER:3000000001",
      "urn:li:member:03000000001",
      " urn:li:mEmBeR:0003000000001 ",
    ]) {
      expect(canonicalSubject("profile", spelling), spelling).toBe("urn:li:member:3000000001");
    }
    // An id that is not a number keeps its case: it is not ours to fold.
    expect(canonicalSubject("profile", "urn:li:FSD_PROFILE:ACoAAB-x_9")).toBe("urn:li:fsd_profile:ACoAAB-x_9");
    expect(canonicalSubject("profile", "urn:li:member:000")).toBe("urn:li:member:0");
    for (const other of ["", "urn:li:member:", "urn:li:member:3:4", "urn:xx:member:3", "urn:li:mem ber:3", `urn:li:member:${"1".repeat(101)}`, "1000000000000003"]) {
      expect(canonicalSubject("profile", other), other).toBeNull();
    }
  });

  it("is idempotent, and leaves a text that names no subject as it is for comparison", () => {
    for (const [kind, spelling] of [["event", "0042"], ["pin_user", "0007"], ["profile", "urn:li:MEMBER:0099"]] as const) {
      const once = subjectKey(kind, spelling);
      expect(subjectKey(kind, once)).toBe(once);
    }
    expect(subjectKey("event", "not an id")).toBe("not an id");
    expect(canonicalNumber("0000")).toBe("0");
    expect(canonicalNumber("0100")).toBe("100");
  });
});
