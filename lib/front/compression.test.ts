import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { compress, negotiateEncoding } from "./compression";
import { readRequestTarget } from "./request-target";

describe("Accept-Encoding negotiation", () => {
  it("picks an offered encoding the client accepts, by q-value, ties to the server's order", () => {
    expect(negotiateEncoding("gzip, deflate, br", ["gzip"])).toBe("gzip");
    expect(negotiateEncoding("gzip, deflate, br", ["br", "gzip"])).toBe("br");
    expect(negotiateEncoding("br;q=0.5, gzip", ["br", "gzip"])).toBe("gzip");
    expect(negotiateEncoding("*", ["gzip"])).toBe("gzip");
    expect(negotiateEncoding("*;q=0, identity", ["gzip"])).toBeNull();
    expect(negotiateEncoding("gzip;q=0", ["gzip"])).toBeNull();
    expect(negotiateEncoding("GZIP", ["gzip"])).toBe("gzip");
    expect(negotiateEncoding("identity", ["gzip"])).toBeNull();
    expect(negotiateEncoding("", ["gzip"])).toBeNull();
    expect(negotiateEncoding(undefined, ["gzip"])).toBeNull();
    expect(negotiateEncoding("gzip;q=abc", ["gzip"])).toBeNull();
  });

  it("compresses to bytes that decode to the input", async () => {
    const body = Buffer.from(JSON.stringify({ followers: Array.from({ length: 25 }, (_, index) => ({ username: `user${index}` })) }));
    expect(zlib.gunzipSync(await compress(body, "gzip")).equals(body)).toBe(true);
    expect(zlib.brotliDecompressSync(await compress(body, "br")).equals(body)).toBe(true);
  });
});

describe("request targets", () => {
  it("resolves dot segments as Next does and leaves percent-encoding alone", () => {
    expect(readRequestTarget("/v1/./pinsite/followers?userid=1")).toEqual({ kind: "path", pathname: "/v1/pinsite/followers", search: "?userid=1", absoluteForm: false });
    expect(readRequestTarget("/v1/pinsite/%2e%2e/x")).toMatchObject({ pathname: "/v1/x" });
    expect(readRequestTarget("/v1/%2e%2e/api/ping")).toMatchObject({ pathname: "/api/ping" });
    expect(readRequestTarget("/v1/%E0%A4%A")).toMatchObject({ pathname: "/v1/%E0%A4%A" });
  });

  it("redirects doubled slashes and backslashes to a path, never to a host", () => {
    expect(readRequestTarget("/v1//pinsite//followers?userid=1")).toEqual({ kind: "redirect", pathname: "/v1/pinsite/followers", location: "/v1/pinsite/followers?userid=1" });
    expect(readRequestTarget("/v1\\pinsite")).toMatchObject({ kind: "redirect", location: "/v1/pinsite" });
    expect(readRequestTarget("//evil.example/v1")).toMatchObject({ kind: "redirect", location: "/evil.example/v1" });
  });

  it("reads absolute-form targets by their path and refuses what is no path", () => {
    expect(readRequestTarget("http://other.example/v1/x?a=1")).toEqual({ kind: "path", pathname: "/v1/x", search: "?a=1", absoluteForm: true });
    expect(readRequestTarget("*")).toEqual({ kind: "invalid" });
    expect(readRequestTarget("other.example:443")).toEqual({ kind: "invalid" });
  });
});
