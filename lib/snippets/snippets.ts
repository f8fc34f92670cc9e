import { callUrl, KEY_ENV_VAR, sentParams, type ApiCall } from "./call";
import { jsString, pythonString, shellQuote } from "./quote";

/**
 * Copy-paste code for exactly one call, in the forms the API page offers (curl, fetch and
 * Python's urllib here; the SDK and the Python client in ./clients.ts). Each reads the
 * key from the SOCIAL_LOOKUP_API_KEY environment variable: a snippet never contains a real key.
 */
export { KEY_ENV_VAR, callUrl, type ApiCall, type QueryParam } from "./call";
export { ACCOUNT_CLIENT_NAMES, pythonClientSnippet, sdkSnippet, type ClientNames } from "./clients";

/** curl: one fully encoded URL in single quotes; the header in double quotes so the shell expands the key. */
export const curlSnippet = (call: ApiCall): string =>
  [`curl -sS ${shellQuote(callUrl(call))} \\`, `  -H "Authorization: Bearer $${KEY_ENV_VAR}"`].join("\n");

/**
 * JavaScript for Node.js 18+ (an ES module): URL.searchParams encodes each value the way the API
 * reads it; the answer is printed indented, since lookups return nested records.
 */
export const fetchSnippet = (call: ApiCall): string => {
  const params = sentParams(call.params);
  return [
    `// Node.js 18+ as an ES module (e.g. call.mjs); the key comes from $${KEY_ENV_VAR}.`,
    `const url = new URL(${jsString(callUrl({ ...call, params: [] }))});`,
    ...params.map(([name, value]) => `url.searchParams.append(${jsString(name)}, ${jsString(value)});`),
    "",
    "const response = await fetch(url, {",
    `  headers: { Authorization: \`Bearer \${process.env.${KEY_ENV_VAR}}\` },`,
    "});",
    "const data = await response.json();",
    "console.log(response.status);",
    "console.log(JSON.stringify(data, null, 2));",
  ].join("\n");
};

const hasDuplicateNames = (names: readonly string[]): boolean => new Set(names).size !== names.length;

/**
 * Python 3 with the standard library only (urllib), so it runs on any Python without a package
 * to install. urlencode does the form encoding (a dict, or a list of pairs should a name repeat);
 * an HTTP error still carries the JSON envelope, so it is printed like a success.
 */
export const pythonSnippet = (call: ApiCall): string => {
  const params = sentParams(call.params);
  const asPairs = hasDuplicateNames(params.map(([name]) => name));
  const base = pythonString(callUrl({ ...call, params: [] }));
  const urlLines =
    params.length === 0
      ? [`url = ${base}`]
      : [
          `query = urllib.parse.urlencode(${asPairs ? "[" : "{"}`,
          ...params.map(([name, value]) =>
            asPairs ? `    (${pythonString(name)}, ${pythonString(value)}),` : `    ${pythonString(name)}: ${pythonString(value)},`,
          ),
          `${asPairs ? "]" : "}"})`,
          `url = ${base} + "?" + query`,
        ];
  return [
    `# Python 3, standard library only; the key comes from $${KEY_ENV_VAR}.`,
    "import json",
    "import os",
    "import urllib.error",
    "import urllib.parse",
    "import urllib.request",
    "",
    ...urlLines,
    "request = urllib.request.Request(",
    "    url,",
    `    headers={"Authorization": f"Bearer {os.environ['${KEY_ENV_VAR}']}"},`,
    ")",
    "try:",
    "    with urllib.request.urlopen(request, timeout=30) as response:",
    "        status, body = response.status, response.read()",
    "except urllib.error.HTTPError as error:",
    "    status, body = error.code, error.read()",
    "print(status)",
    "print(json.dumps(json.loads(body), indent=2, ensure_ascii=False))",
  ].join("\n");
};
