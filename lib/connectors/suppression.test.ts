import { describe, expect, it } from "vitest";
import type { Queryable } from "@/lib/db/client";
import { shelfKind } from "@/tests/support/shelf-kind";
import type { SubjectKind } from "@/lib/records/subject-kinds";
import type { Source } from "./source";
import type { StoreConnector } from "./store";
import { createSuppressionList, withSuppression } from "./suppression";
import type { LookupResult } from "./types";

/**
 * The guard knows no kind of record: a source of a kind it has never seen is guarded by that
 * kind's subject and canonical spelling, and by the subjects its answer declares.
 */
type Shelf = { owner: string; items: { holder: string }[] };


const unused = async (): Promise<never> => {
  throw new Error("the engine runs no SQL in this test");
};

const shelfSource: Source<{ code: string }, Shelf> = {
  kind: shelfKind,
  subject: (params) => params.code,
  key: (params) => params.code,
  fromStore: unused,
  probe: unused,
  fetch: unused,
  answerSubjects: {
    own: (data) => data.owner,
    entries: (data, keep) => {
      const items = data.items.filter((item) => keep(item.holder));
      return items.length === data.items.length ? data : { ...data, items };
    },
  },
};

const answering = (data: Shelf) => {
  const asked: string[] = [];
  const inner: StoreConnector = {
    name: "store",
    lookup: async <Params, Data>(_source: Source<Params, Data>, params: Params): Promise<LookupResult> => {
      asked.push(JSON.stringify(params));
      return { found: true, dataJson: JSON.stringify(data), asOf: null };
    },
    clearCache: () => undefined,
  };
  return { inner, asked };
};

const guarded = (inner: StoreConnector, suppressed: [SubjectKind, string[]][]) =>
  withSuppression(
    inner,
    createSuppressionList({
      db: async () => ({}) as Queryable,
      read: async () => new Map(suppressed.map(([kind, subjects]) => [kind, new Set(subjects)])),
    }),
  );

const context = { keyOwnerId: null, reserve: async () => true };

describe("the suppression guard, for any source", () => {
  it("answers not found for a suppressed subject in another spelling, without asking the source", async () => {
    const { inner, asked } = answering({ owner: "B", items: [] });
    const connector = guarded(inner, [["profile", ["ANNA"]]]);
    expect(await connector.lookup(shelfSource, { code: " anna " }, context)).toEqual({ found: false });
    expect(asked).toEqual([]);
  });

  it("answers not found when the answer's own subject is suppressed", async () => {
    const { inner } = answering({ owner: "anna", items: [] });
    expect(await guarded(inner, [["profile", ["ANNA"]]]).lookup(shelfSource, { code: "bert" }, context)).toEqual({ found: false });
  });

  it("leaves suppressed entries out, and the text untouched when it lists none", async () => {
    const { inner } = answering({ owner: "B", items: [{ holder: "anna" }, { holder: "carl" }] });
    const connector = guarded(inner, [["profile", ["ANNA"]]]);
    const result = await connector.lookup(shelfSource, { code: "bert" }, context);
    expect(result).toEqual({ found: true, dataJson: '{"owner":"B","items":[{"holder":"carl"}]}', asOf: null });

    const untouched = answering({ owner: "B", items: [{ holder: "carl" }] });
    const text = '{"owner":"B","items":[{"holder":"carl"}]}';
    expect(await guarded(untouched.inner, [["profile", ["ANNA"]]]).lookup(shelfSource, { code: "bert" }, context)).toEqual({
      found: true,
      dataJson: text,
      asOf: null,
    });
  });

  it("reads only the source kind's suppressions", async () => {
    const { inner, asked } = answering({ owner: "anna", items: [{ holder: "anna" }] });
    const result = await guarded(inner, [["event", ["ANNA"]], ["pin_user", ["ANNA"]]]).lookup(shelfSource, { code: "anna" }, context);
    expect(result.found).toBe(true);
    expect(asked).toHaveLength(1);
  });
});
