import { describe, expect, it } from "vitest";
import { entrySubject, entrySubjectSql } from "./listed-subjects";

describe("the subject a list entry names", () => {
  it("reads the kinds table's path in SQL, on the record or an alias's record", () => {
    expect(entrySubjectSql(["node", "entityId"])).toBe("record->'node'->>'entityId'");
    expect(entrySubjectSql(["node", "entityId"], "f")).toBe("f.record->'node'->>'entityId'");
    expect(entrySubjectSql(["id"])).toBe("record->>'id'");
  });

  it("refuses a path key that is not a plain JSON key", () => {
    expect(() => entrySubjectSql(["node", "x' OR '1'='1"])).toThrow("not a plain JSON key");
  });

  it("reads the same path on an entry, and nothing on an entry without it", () => {
    expect(entrySubject({ node: { entityId: "42" }, cursor: null }, ["node", "entityId"])).toBe("42");
    expect(entrySubject({ node: null }, ["node", "entityId"])).toBeUndefined();
    expect(entrySubject({ node: { entityId: 42 } }, ["node", "entityId"])).toBeUndefined();
  });
});
