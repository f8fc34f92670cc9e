import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCursorCodec } from "./cursor";
import { entityIdFromNodeId, nodeIdFor } from "@/lib/records/node-id";

describe("follower cursors", () => {
  const codec = createCursorCodec(crypto.randomBytes(32));

  it("round-trips and is stable", () => {
    const cursor = codec.encode({ userId: "2000000001", offset: 25 });
    expect(codec.encode({ userId: "2000000001", offset: 25 })).toBe(cursor);
    expect(codec.decode(cursor)).toEqual({ userId: "2000000001", offset: 25 });
  });

  it("refuses a tampered cursor, a foreign one and garbage", () => {
    const cursor = codec.encode({ userId: "2000000001", offset: 25 });
    const [body = "", signature = ""] = cursor.split(".");
    const forgedBody = Buffer.from("2000000001:9999").toString("base64url");
    expect(codec.decode(`${forgedBody}.${signature}`)).toBeNull();
    const flipped = signature.startsWith("A") ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(codec.decode(`${body}.${flipped}`)).toBeNull();
    expect(createCursorCodec(crypto.randomBytes(32)).decode(cursor)).toBeNull();
    expect(codec.decode("not-a-cursor")).toBeNull();
    expect(codec.decode(`${cursor}.extra`)).toBeNull();
  });
});

describe("node ids", () => {
  it("encode the entity id the way the site does and decode only our own", () => {
    expect(nodeIdFor("2000000002")).toBe(Buffer.from("User:2000000002").toString("base64"));
    expect(entityIdFromNodeId(nodeIdFor("2000000002"))).toBe("2000000002");
    expect(entityIdFromNodeId(Buffer.from("Board:1").toString("base64"))).toBeNull();
    expect(entityIdFromNodeId("!!!")).toBeNull();
  });
});

describe("cursor signatures", () => {
  it("refuses every change of the signature text, including the last character's spare bits", () => {
    const codec = createCursorCodec(crypto.randomBytes(32));
    const cursor = codec.encode({ userId: "2000000002", offset: 25 });
    const last = cursor.at(-1) ?? "";
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (const replacement of alphabet) {
      if (replacement === last) continue;
      expect(codec.decode(`${cursor.slice(0, -1)}${replacement}`)).toBeNull();
    }
  });
});
