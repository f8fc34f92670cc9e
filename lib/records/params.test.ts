import { describe, expect, it } from "vitest";
import { eventIdFromUrl, parseEventById, parseEventByUrl, parseFollowers, parsePublications, summariseQuery } from "./params";

const q = (query: string) => new URLSearchParams(query);
const hosts = { hosts: ["events.demo.test"] };
const message = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  return "no error";
};

describe("event page URLs", () => {
  it.each([
    "https://events.demo.test/events/1000000000000001/",
    "https://events.demo.test/events/1000000000000001",
    "https://www.events.demo.test/events/1000000000000001/",
    "https://m.events.demo.test/events/1000000000000001/?ref=share&x=1",
    "https://EVENTS.demo.test/events/1000000000000001/#top",
  ])("accepts %s", (url) => {
    expect(eventIdFromUrl(url, hosts)).toBe("1000000000000001");
  });

  it.each([
    "http://events.demo.test/events/1/",
    "https://evil.test/events/1/",
    "https://events.demo.test/events/abc/",
    "https://events.demo.test/events/1/extra/",
    "https://events.demo.test/groups/1/",
    "https://user:pw@events.demo.test/events/1/",
    "events.demo.test/events/1/",
    "https://events.demo.test/events/123456789012345678901/",
    "javascript:alert(1)",
  ])("refuses %s", (url) => {
    expect(message(() => eventIdFromUrl(url, hosts))).toBe("Invalid parameter: url");
  });

  it("accepts any https host with *", () => {
    expect(eventIdFromUrl("https://anything.example/events/42/", { hosts: ["*"] })).toBe("42");
  });
});

describe("parameters", () => {
  it("names the missing parameter", () => {
    expect(message(() => parseEventByUrl(q(""), hosts))).toBe("Missing required parameter: url");
    expect(message(() => parseEventByUrl(q("url="), hosts))).toBe("Missing required parameter: url");
    expect(message(() => parseEventById(q("")))).toBe("Missing required parameter: event_id");
    expect(message(() => parseFollowers(q("")))).toBe("Missing required parameter: userid");
    expect(message(() => parsePublications(q("page=2")))).toBe("Missing required parameter: urn");
  });

  it("refuses malformed, repeated and overlong values", () => {
    expect(message(() => parseEventById(q("event_id=12a")))).toBe("Invalid parameter: event_id");
    expect(message(() => parseEventById(q("event_id=1&event_id=2")))).toBe("Invalid parameter: event_id");
    expect(message(() => parseFollowers(q("userid=1' OR '1'='1")))).toBe("Invalid parameter: userid");
    expect(message(() => parseFollowers(q(`node_id=${"A".repeat(300)}`)))).toBe("Invalid parameter: node_id");
    expect(message(() => parsePublications(q("urn=urn:li:member:1&page=0")))).toBe("Invalid parameter: page");
    expect(message(() => parsePublications(q("urn=urn:li:member:1&page=-1")))).toBe("Invalid parameter: page");
    expect(message(() => parsePublications(q("urn=urn:li:member:1&page=1.5")))).toBe("Invalid parameter: page");
    expect(message(() => parsePublications(q("urn=ürn")))).toBe("Invalid parameter: urn");
    expect(message(() => parseEventByUrl(q(`url=https://events.demo.test/events/${"1".repeat(3000)}/`), hosts))).toBe(
      "Invalid parameter: url",
    );
  });

  it("reads followers queries: userid first, else node_id with an optional cursor", () => {
    expect(parseFollowers(q("userid=2000000002&node_id=x"))).toEqual({ kind: "first", userId: "2000000002" });
    expect(parseFollowers(q("node_id=VXNlcjoy&cursor=abc.def"))).toEqual({
      kind: "next",
      nodeId: "VXNlcjoy",
      cursor: "abc.def",
    });
  });

  it("defaults the publications page to 1", () => {
    expect(parsePublications(q("urn=urn:li:member:3000000001"))).toEqual({ urn: "urn:li:member:3000000001", page: 1 });
    expect(parsePublications(q("urn=urn:li:member:3000000001&page=3")).page).toBe(3);
  });
});

describe("usage summaries", () => {
  it("never carry characters the database cannot store, nor half an emoji", () => {
    const summary = summariseQuery(new URLSearchParams({ userid: `${"1".repeat(119)}🎉\u0000x` }), ["userid"]);
    expect(summary).not.toMatch(/[\u0000-\u001f]/);
    expect(summary.isWellFormed()).toBe(true);
    expect(summary.endsWith("🎉")).toBe(true);
    expect(summary.startsWith("userid=1")).toBe(true);
  });
});
