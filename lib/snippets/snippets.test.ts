import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUrl, queryString, sentParams, type ApiCall, type QueryParam } from "./call";
import { jsString, pythonString, shellQuote } from "./quote";
import { curlSnippet, fetchSnippet, KEY_ENV_VAR, pythonSnippet } from "./snippets";

const run = promisify(execFile);

const BASE_URL = "http://127.0.0.1:3000";

/** Values that break naive quoting or encoding. */
const awkwardValues = [
  "plain",
  "two words",
  "it's",
  'say "hi"',
  "a&b=c",
  "?#%+/",
  "back\\slash",
  "`$(whoami)` ${HOME} $HOME",
  "line\nbreak\ttab",
  "Zürich 東京 🎷",
  "\u2028\u2029",
] as const;

const followersNextPage: ApiCall = {
  baseUrl: BASE_URL,
  path: "/v1/pinsite/followers",
  params: [
    ["userid", ""],
    ["node_id", "VXNlcjoyMDAwMDAwMDAy"],
    ["cursor", "MjU.c2lnbmVk"],
  ],
};

const hasCommand = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: "ignore" }).status === 0;
const hasCurl = hasCommand("curl", ["--version"]);
// python3 is required like bash: the Python snippet needs nothing but the standard library.
const hasPython3 = hasCommand("python3", ["--version"]);

describe("callUrl: the URL the form sends and the snippets print", () => {
  it("joins base URL, path and form-encoded query", () => {
    expect(callUrl({ baseUrl: BASE_URL, path: "/v1/jobsite/get_user_publications", params: [["urn", "urn:li:member:3000000001"], ["page", "2"]] })).toBe(
      "http://127.0.0.1:3000/v1/jobsite/get_user_publications?urn=urn%3Ali%3Amember%3A3000000001&page=2",
    );
  });

  it("builds the followers next-page URL from node_id and cursor, leaving the empty userid out", () => {
    expect(callUrl(followersNextPage)).toBe(
      "http://127.0.0.1:3000/v1/pinsite/followers?node_id=VXNlcjoyMDAwMDAwMDAy&cursor=MjU.c2lnbmVk",
    );
  });

  it("encodes spaces, & and = inside values so they stay one value", () => {
    expect(queryString([["q", "a b&c=d"]])).toBe("q=a+b%26c%3Dd");
    expect(new URLSearchParams(queryString([["q", "a b&c=d"], ["x", "1"]])).get("q")).toBe("a b&c=d");
  });

  it("percent-encodes unicode as UTF-8", () => {
    expect(queryString([["q", "Zürich 🎷"]])).toBe("q=Z%C3%BCrich+%F0%9F%8E%B7");
  });

  it("drops a trailing slash of the base URL and allows a relative (same-origin) call", () => {
    expect(callUrl({ baseUrl: "https://lookup.example.com/", path: "/v1/x", params: [] })).toBe("https://lookup.example.com/v1/x");
    expect(callUrl({ baseUrl: "", path: "/v1/x", params: [["a", "1"]] })).toBe("/v1/x?a=1");
  });

  it("round-trips every awkward value through the query string", () => {
    const params: QueryParam[] = awkwardValues.map((value, index) => [`p${index}`, value]);
    const decoded = [...new URLSearchParams(queryString(params)).entries()];
    expect(decoded).toEqual(params);
  });

  it("sends a lone surrogate as U+FFFD, as URLSearchParams does", () => {
    expect(sentParams([["q", "a\ud800b"]])).toEqual([["q", "a\ufffdb"]]);
  });
});

describe("quoting", () => {
  it("shellQuote: bash reads back exactly the string", async () => {
    const quoted = awkwardValues.map(shellQuote).join(" ");
    const { stdout } = await run("bash", ["-c", `printf '%s\\0' ${quoted}`]);
    expect(stdout.split("\0").slice(0, -1)).toEqual([...awkwardValues]);
  });

  it("shellQuote closes and reopens around a single quote", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("jsString: JavaScript reads back exactly the string, including U+2028/U+2029 and lone surrogates", () => {
    for (const value of [...awkwardValues, "lone \ud800 surrogate"]) {
      const literal = jsString(value);
      expect(literal).not.toMatch(/[\u2028\u2029\n]/);
      expect(new Function(`return ${literal};`)()).toBe(value);
    }
  });

  it("pythonString escapes quotes, backslashes and control characters and keeps unicode readable", () => {
    expect(pythonString('say "hi" \\ ok')).toBe('"say \\"hi\\" \\\\ ok"');
    expect(pythonString("a\nb\u0001")).toBe('"a\\nb\\x01"');
    expect(pythonString("Zürich 🎷")).toBe('"Zürich 🎷"');
    expect(pythonString("lone \ud800")).toBe('"lone \\ud800"');
  });

  it("pythonString: Python reads back exactly the string", async () => {
    const values = [...awkwardValues];
    const program = `import json\nprint(json.dumps([${values.map(pythonString).join(", ")}]))`;
    const { stdout } = await run("python3", ["-c", program]);
    expect(JSON.parse(stdout)).toEqual(values);
  });
});

describe("snippets", () => {
  it("curl: the exact URL, the placeholder key, no token", () => {
    expect(curlSnippet(followersNextPage)).toBe(
      [
        "curl -sS 'http://127.0.0.1:3000/v1/pinsite/followers?node_id=VXNlcjoyMDAwMDAwMDAy&cursor=MjU.c2lnbmVk' \\",
        '  -H "Authorization: Bearer $SOCIAL_LOOKUP_API_KEY"',
      ].join("\n"),
    );
  });

  it("curl: a value with a single quote stays inside the quoted URL", () => {
    const snippet = curlSnippet({ baseUrl: BASE_URL, path: "/v1/x", params: [["q", "it's & more"]] });
    expect(snippet).toContain("'http://127.0.0.1:3000/v1/x?q=it%27s+%26+more'");
  });

  it("fetch: one append per parameter with escaped literals and the key from the environment", () => {
    expect(fetchSnippet({ baseUrl: BASE_URL, path: "/v1/x", params: [["q", 'say "hi"\n'], ["empty", ""]] })).toBe(
      [
        "// Node.js 18+ as an ES module (e.g. call.mjs); the key comes from $SOCIAL_LOOKUP_API_KEY.",
        'const url = new URL("http://127.0.0.1:3000/v1/x");',
        'url.searchParams.append("q", "say \\"hi\\"\\n");',
        "",
        "const response = await fetch(url, {",
        "  headers: { Authorization: `Bearer ${process.env.SOCIAL_LOOKUP_API_KEY}` },",
        "});",
        "const data = await response.json();",
        "console.log(response.status);",
        "console.log(JSON.stringify(data, null, 2));",
      ].join("\n"),
    );
  });

  it("python: the standard library only, a urlencoded dict with escaped literals, the key from the environment", () => {
    expect(pythonSnippet(followersNextPage)).toBe(
      [
        "# Python 3, standard library only; the key comes from $SOCIAL_LOOKUP_API_KEY.",
        "import json",
        "import os",
        "import urllib.error",
        "import urllib.parse",
        "import urllib.request",
        "",
        "query = urllib.parse.urlencode({",
        '    "node_id": "VXNlcjoyMDAwMDAwMDAy",',
        '    "cursor": "MjU.c2lnbmVk",',
        "})",
        'url = "http://127.0.0.1:3000/v1/pinsite/followers" + "?" + query',
        "request = urllib.request.Request(",
        "    url,",
        "    headers={\"Authorization\": f\"Bearer {os.environ['SOCIAL_LOOKUP_API_KEY']}\"},",
        ")",
        "try:",
        "    with urllib.request.urlopen(request, timeout=30) as response:",
        "        status, body = response.status, response.read()",
        "except urllib.error.HTTPError as error:",
        "    status, body = error.code, error.read()",
        "print(status)",
        "print(json.dumps(json.loads(body), indent=2, ensure_ascii=False))",
      ].join("\n"),
    );
  });

  it("python: imports nothing outside the standard library", () => {
    const imports = pythonSnippet(followersNextPage)
      .split("\n")
      .filter((line) => /^(import|from) /.test(line))
      .map((line) => line.split(" ")[1]?.split(".")[0]);
    expect(new Set(imports)).toEqual(new Set(["json", "os", "urllib"]));
  });

  it("python: no query without parameters, pairs when a name repeats", () => {
    const bare = pythonSnippet({ baseUrl: BASE_URL, path: "/v1/account", params: [] });
    expect(bare).not.toContain("urlencode");
    expect(bare).toContain('url = "http://127.0.0.1:3000/v1/account"');
    expect(pythonSnippet({ baseUrl: BASE_URL, path: "/v1/x", params: [["a", "1"], ["a", "2"]] })).toContain('    ("a", "2"),');
  });

  it("no snippet can carry a key: the call has no field for one, each names the environment variable", () => {
    for (const snippet of [curlSnippet, fetchSnippet, pythonSnippet].map((make) => make(followersNextPage))) {
      expect(snippet).toContain(KEY_ENV_VAR);
      expect(snippet).not.toMatch(/Bearer [A-Za-z0-9_-]{8,}/);
    }
  });
});

/**
 * The snippets run for real against a local server that records what arrives: all three must
 * send the same path, the same decoded parameters and the key from the environment.
 */
describe("snippets, executed", () => {
  const MISSING_PATH = "/v1/pinsite/followers";
  const answer = { code: 0, message: "success", data: { publications: [{ title: "Zürich 東京", tags: ["a", "b"] }], page: 1 }, requestId: "r" };
  const notFound = { code: 404, message: "User not found", data: null, requestId: "r404" };
  type Seen = { path: string; params: [string, string][]; authorization: string | undefined };
  const seen: Seen[] = [];
  let server: http.Server;
  let baseUrl = "";
  let workDir = "";
  const key = "test-key-from-the-environment";

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://placeholder.invalid");
      seen.push({ path: url.pathname, params: [...url.searchParams.entries()], authorization: request.headers.authorization });
      const status = url.pathname === MISSING_PATH ? 404 : 200;
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(status === 200 ? answer : notFound));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "snippets-"));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  const call = (): ApiCall => ({
    baseUrl,
    path: "/v1/jobsite/get_user_publications",
    params: [
      ["urn", "urn:li:member:3000000001"],
      ["quote", `it's "quoted"`],
      ["amp", "a&b=c d"],
      ["unicode", "Zürich 東京 🎷"],
      ["empty", ""],
    ],
  });
  const expectedParams = (): [string, string][] => sentParams(call().params).map(([name, value]) => [name, value]);
  const environment = { ...process.env, [KEY_ENV_VAR]: key };

  const lastSeen = (): Seen => {
    const last = seen.at(-1);
    if (!last) throw new Error("the server saw no request");
    return last;
  };

  const expectTheCall = () => {
    expect(lastSeen()).toEqual({ path: "/v1/jobsite/get_user_publications", params: expectedParams(), authorization: `Bearer ${key}` });
  };

  it.skipIf(!hasCurl)("curl sends exactly the call", async () => {
    await run("bash", ["-c", curlSnippet(call())], { env: environment });
    expectTheCall();
  });

  /** What a snippet printed: the status on the first line, then the envelope as indented JSON. */
  const printed = (stdout: string): { status: number; body: unknown; indented: boolean } => {
    const [statusLine = "", ...rest] = stdout.trimEnd().split("\n");
    return { status: Number(statusLine), body: JSON.parse(rest.join("\n")), indented: rest.length > 3 && rest[1]?.startsWith("  ") === true };
  };

  it("fetch sends exactly the call and prints the status and the nested answer indented", async () => {
    const file = path.join(workDir, "call.mjs");
    fs.writeFileSync(file, fetchSnippet(call()));
    const { stdout } = await run(process.execPath, [file], { env: environment });
    expectTheCall();
    expect(printed(stdout)).toEqual({ status: 200, body: answer, indented: true });
  });

  it("python3 (standard library) sends exactly the call and prints the status and the nested answer indented", async () => {
    expect(hasPython3, "python3 must be installed to run the Python snippet").toBe(true);
    const file = path.join(workDir, "call.py");
    fs.writeFileSync(file, pythonSnippet(call()));
    const { stdout } = await run("python3", ["-I", file], { env: environment });
    expectTheCall();
    expect(printed(stdout)).toEqual({ status: 200, body: answer, indented: true });
  });

  it("both print an error answer's status and envelope instead of failing", async () => {
    const missing: ApiCall = { baseUrl, path: MISSING_PATH, params: [["userid", "2999999999"]] };
    const js = path.join(workDir, "missing.mjs");
    const py = path.join(workDir, "missing.py");
    fs.writeFileSync(js, fetchSnippet(missing));
    fs.writeFileSync(py, pythonSnippet(missing));
    const fromNode = await run(process.execPath, [js], { env: environment });
    const fromPython = await run("python3", ["-I", py], { env: environment });
    for (const { stdout } of [fromNode, fromPython]) expect(printed(stdout)).toEqual({ status: 404, body: notFound, indented: true });
  });
});
