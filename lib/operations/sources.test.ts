import { describe, expect, it } from "vitest";
import { KEY_CHECK_PATH } from "@/lib/connectors/upstream-client";
import { recordKinds } from "@/lib/records/kinds";
import { eventDetailsOperation } from "./event-details/descriptor";
import { eventDetailsIdOperation } from "./event-details-id/descriptor";
import { eventSource } from "./event-details-id/source";
import { followersOperation } from "./followers/descriptor";
import { followersSource } from "./followers/source";
import { publicationsOperation } from "./publications/descriptor";
import { publicationsSource } from "./publications/source";

/** Each operation's declared source (lib/operations/<op>/source.ts) against its descriptor and the kinds table. */
describe("operation sources", () => {
  const pairs = [
    { id: eventDetailsOperation.id, descriptor: eventDetailsOperation, source: eventSource },
    { id: eventDetailsIdOperation.id, descriptor: eventDetailsIdOperation, source: eventSource },
    { id: followersOperation.id, descriptor: followersOperation, source: followersSource },
    { id: publicationsOperation.id, descriptor: publicationsOperation, source: publicationsSource },
  ];

  it.each(pairs)("$id: the source's record kind names the descriptor's subject kind", ({ descriptor, source }) => {
    expect(source.kind.subject).toBe(descriptor.subjectKind);
    expect(recordKinds.map((kind) => kind.cacheKind)).toContain(source.kind.cacheKind);
  });

  it("the provider key check asks the publication list's provider path", () => {
    expect(publicationsSource.upstreamPath).toBe(KEY_CHECK_PATH);
  });
});
