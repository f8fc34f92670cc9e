import { describe, expect, it } from "vitest";
import { nodeIdFor } from "@/lib/records/node-id";
import { textNames } from "./subjects";

/** A stored query (a usage row's params summary, `name=value&…`) names a subject as a whole token. */
describe("textNames", () => {
  const profile = { kind: "profile", subject: "urn:li:member:3" };
  const user = { kind: "pin_user", subject: "2000000002" };
  const event = { kind: "event", subject: "1000000000000001" };

  it("finds a URN, a user id, its node id and an event id after their parameter's name", () => {
    expect(textNames("urn=urn:li:member:3&page=2", profile)).toBe(true);
    expect(textNames("userid=2000000002", user)).toBe(true);
    expect(textNames(`node_id=${nodeIdFor("2000000002")}&cursor=MjU.c2lnbmVk`, user)).toBe(true);
    expect(textNames("url=https://events.demo.test/events/1000000000000001/", event)).toBe(true);
  });

  it("does not take a longer id for the subject", () => {
    expect(textNames("urn=urn:li:member:31", profile)).toBe(false);
    expect(textNames("userid=20000000021", user)).toBe(false);
    expect(textNames("event_id=10000000000000012", event)).toBe(false);
    expect(textNames(`node_id=${nodeIdFor("20000000021")}`, user)).toBe(false);
  });
});
