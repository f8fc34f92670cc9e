import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { batchCurlSnippet, batchFetchSnippet, batchPythonSnippet } from "./batch";

const call = { baseUrl: "https://lookup.example.test/", operation: "event_details_id", inputs: ["1000000000000001", "it's \"quoted\""] };

describe("batch snippets", () => {
  it("start, poll and download a batch at this deployment, with the key from the environment only", () => {
    const curl = batchCurlSnippet(call);
    expect(curl).toContain("curl -sS -X POST 'https://lookup.example.test/v1/batches'");
    expect(curl).toContain("/v1/batches/BATCH_ID/results?format=ndjson");
    for (const snippet of [curl, batchFetchSnippet(call), batchPythonSnippet(call)]) {
      expect(snippet).toContain("SOCIAL_LOOKUP_API_KEY");
      expect(snippet).not.toMatch(/eyJ[\w-]+\./);
    }
  });

  it("are valid programs: the shell body is the JSON request, Python and JavaScript parse", () => {
    const quoted = batchCurlSnippet(call).split("\n").find((line) => line.startsWith("  -d "))?.slice(5) ?? "";
    const body = execFileSync("bash", ["-c", `printf %s ${quoted}`]).toString();
    expect(JSON.parse(body)).toEqual({ operation: "event_details_id", inputs: call.inputs });
    execFileSync("python3", ["-c", "import ast, sys; ast.parse(sys.stdin.read())"], { input: batchPythonSnippet(call) });
    expect(() => new Function(`return async () => {\n${batchFetchSnippet(call)}\n}`)).not.toThrow();
  });
});
