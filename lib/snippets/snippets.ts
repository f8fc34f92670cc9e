import { callUrl, KEY_ENV_VAR, sentParams, type ApiCall } from "./call";
import { jsString, pythonString, shellQuote } from "./quote";

/**
 * Copy-paste code for exactly one call, in the three forms the API page offers. Each reads the
 * key from the SOCIAL_LOOKUP_KEY environment variable: a snippet never contains a real key.
 */
export { KEY_ENV_VAR, callUrl, type ApiCall, type QueryParam } from "./call";

/** curl: one fully encoded URL in single quotes; the header in double quotes so the shell expands the key. */
export const curlSnippet = (call: ApiCall): string =>
  [`curl -sS ${shellQuote(callUrl(call))} \\`, `  -H "Authorization: Bearer $${KEY_ENV_VAR}"`].join("\n");

/** JavaScript for Node.js 18+ (an ES module): URL.searchParams encodes each value the way the API reads it. */
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
    "console.log(response.status, await response.json());",
  ].join("\n");
};

const hasDuplicateNames = (names: readonly string[]): boolean => new Set(names).size !== names.length;

/** Python 3 with requests: params as a dict (a list of pairs should a name repeat), so requests does the encoding. */
export const pythonSnippet = (call: ApiCall): string => {
  const params = sentParams(call.params);
  const asPairs = hasDuplicateNames(params.map(([name]) => name));
  const paramLines =
    params.length === 0
      ? []
      : [
          asPairs ? "    params=[" : "    params={",
          ...params.map(([name, value]) =>
            asPairs ? `        (${pythonString(name)}, ${pythonString(value)}),` : `        ${pythonString(name)}: ${pythonString(value)},`,
          ),
          asPairs ? "    ]," : "    },",
        ];
  return [
    "import os",
    "",
    "import requests",
    "",
    "response = requests.get(",
    `    ${pythonString(callUrl({ ...call, params: [] }))},`,
    ...paramLines,
    `    headers={"Authorization": f"Bearer {os.environ['${KEY_ENV_VAR}']}"},`,
    "    timeout=30,",
    ")",
    "print(response.status_code, response.json())",
  ].join("\n");
};
