import { describe, expect, it } from "vitest";
import { nodeIdFor } from "@/lib/records/node-id";
import { classifyRecord } from "@/lib/import/records";
import { followers } from "./followers";
import { publications } from "./publications";
import { eventDetails } from "./event-details";
import type { Operation, OperationBatch } from "./define";

/** What batches read of an operation: next pages, CSV rows, and NDJSON lines `npm run import` accepts. */
const batchOf = (operation: Operation): OperationBatch => {
  if (!operation.batch) throw new Error(`${operation.id} has no batch knowledge`);
  return operation.batch;
};

const follower = (index: number) => ({
  node: {
    username: `user${index}`,
    status: "ok",
    fullName: `User ${index}`,
    imageMediumUrl: null,
    imageXlargeUrl: null,
    entityId: String(5000 + index),
    isPrivateProfile: index % 2 === 0,
    verifiedIdentity: null,
    id: `node${index}`,
    __typename: "User",
  },
  cursor: null,
});

const publication = (index: number) => ({
  title: `Paper ${index}`,
  publication: "Journal, Vol. 1",
  description: "line one\nline two",
  date: "Jan 5, 2024",
  publication_url: `https://journal.example/${index}`,
});

describe("followers in a batch", () => {
  const batch = batchOf(followers);
  const page = (hasNext: boolean, from: number) => ({
    followers: [follower(from), follower(from + 1)],
    node_id: nodeIdFor("2000000002"),
    page_info: { has_next_page: hasNext, end_cursor: hasNext ? "c.next" : null },
  });

  it("continues with node_id and the end cursor, and stops on the last page", () => {
    expect(batch.nextPage?.(page(true, 1), new URLSearchParams("userid=2000000002"))?.toString()).toBe(
      new URLSearchParams({ node_id: nodeIdFor("2000000002"), cursor: "c.next" }).toString(),
    );
    expect(batch.nextPage?.(page(false, 1), new URLSearchParams("userid=2000000002"))).toBeNull();
  });

  it("flattens a page to one row per follower and exports all pages as one importable list", () => {
    expect(batch.rows(page(false, 1))).toEqual([
      { username: "user1", fullName: "User 1", entityId: "5001", isPrivateProfile: false, id: "node1" },
      { username: "user2", fullName: "User 2", entityId: "5002", isPrivateProfile: true, id: "node2" },
    ]);
    const record = batch.exportRecord(new URLSearchParams("userid=2000000002"), [page(true, 1), page(false, 3)]);
    const classified = classifyRecord(record);
    expect(classified.ok && classified.record.kind === "followers" ? classified.record.list.followers.length : -1).toBe(4);
  });
});

describe("publications in a batch", () => {
  const batch = batchOf(publications);
  const page = (number: number, hasMore: boolean) => ({ page: number, total: 12, has_more: hasMore, data: [publication(number)] });

  it("asks for the next page number while has_more", () => {
    const query = new URLSearchParams("urn=urn:li:member:1");
    expect(batch.nextPage?.(page(1, true), query)?.toString()).toBe("urn=urn%3Ali%3Amember%3A1&page=2");
    expect(batch.nextPage?.(page(2, false), query)).toBeNull();
  });

  it("exports every page's publications under the urn, as npm run import reads them", () => {
    const record = batch.exportRecord(new URLSearchParams("urn=urn:li:member:1"), [page(1, true), page(2, false)]);
    expect(record).toEqual({ urn: "urn:li:member:1", publications: [publication(1), publication(2)] });
    expect(classifyRecord(record).ok).toBe(true);
  });
});

describe("events in a batch", () => {
  it("has one page and yields nothing for a record that does not match the API's shape", () => {
    const batch = batchOf(eventDetails);
    expect(batch.nextPage).toBeUndefined();
    expect(batch.rows({ event: { event_id: "1" } })).toEqual([]);
    expect(batch.exportRecord(new URLSearchParams(), [{ nope: true }])).toBeNull();
  });
});
