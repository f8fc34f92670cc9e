import { describe, expect, it } from "vitest";
import { generateDemoData } from "@/lib/demo/generate";
import { nodeIdFor } from "@/lib/records/node-id";
import { classifyRecord } from "./records";

const demo = generateDemoData("http://localhost:3000");
const follower = (index: number) => {
  const entry = demo.followerLists[1]?.followers[index];
  if (!entry) throw new Error("the demo data set has a list of 30 followers");
  return entry;
};

describe("classifying an import file's value by the kind that claims it", () => {
  it("names every kind of record when a value is none of them", () => {
    expect(classifyRecord({ title: "x" })).toEqual({
      ok: false,
      message: "not a record: expected an event (event_id), a follower list (userid, followers) or a publication list (urn, publications)",
    });
    expect(classifyRecord([1])).toEqual({ ok: false, message: "expected a JSON object" });
  });

  it("reads a list by its entries' field before anything else it carries", () => {
    expect(classifyRecord({ userid: "12", event_id: "1", followers: "none" })).toEqual({ ok: false, message: "followers: expected an array" });
    expect(classifyRecord({ urn: "urn:li:member:1", publications: {} })).toEqual({ ok: false, message: "publications: expected an array" });
  });

  it("words a follower list's problems as before: the node id, then an entry by its position", () => {
    expect(classifyRecord({ userid: "12", node_id: nodeIdFor("13"), followers: [] })).toEqual({
      ok: false,
      message: `node_id: does not belong to userid 12 (expected ${nodeIdFor("12")})`,
    });
    const bad = classifyRecord({ userid: "12", followers: [follower(0), { node: {} }] });
    expect(bad.ok ? "" : bad.message).toMatch(/^followers\.1\.node\./);
    const good = classifyRecord({ userid: "12", followers: [follower(0)] });
    expect(good.ok && good.record.kind === "followers" ? good.record.list : null).toEqual({ userid: "12", followers: [follower(0)] });
  });

  it("reads an event bare or in its wrapper, naming the wrapper in its problems", () => {
    const wrapped = classifyRecord({ event: { event_id: 5 } });
    expect(wrapped.ok ? "" : wrapped.message).toMatch(/^event\.stats: .*; event\.event_id: /);
    const bare = classifyRecord({ event_id: 5 });
    expect(bare.ok ? "" : bare.message).toMatch(/^stats: .*; event_id: /);
  });
});
