import { ACCOUNT_CLIENT_NAMES, type ClientNames } from "@/lib/operations/client-name";
import { KEY_ENV_VAR, sentParams, type ApiCall } from "./call";
import { jsString, pythonString } from "./quote";

/**
 * The same call through the generated clients (clients/): the TypeScript SDK
 * (@social-lookup/client) and the Python client (social_lookup). The method names come from the
 * registry (lib/operations/client-name.ts, as the generator names them); a snippet prints the
 * credit receipt, then the record. Like the other snippets, each reads the key from
 * SOCIAL_LOOKUP_API_KEY and never contains one.
 */
export { ACCOUNT_CLIENT_NAMES, type ClientNames };

const DEFAULT_BASE_URL = "http://localhost:3000";
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const PYTHON_KEYWORDS = new Set("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(" "));
const WHOLE_NUMBER = /^[1-9]\d{0,14}$/;

const baseOf = (call: ApiCall): string => (call.baseUrl === "" ? DEFAULT_BASE_URL : call.baseUrl.replace(/\/+$/, ""));

const isInteger = (names: ClientNames, name: string, value: string): boolean => names.integers.includes(name) && WHOLE_NUMBER.test(value);

/** TypeScript SDK (Node.js 22+, an ES module). */
export const sdkSnippet = (call: ApiCall, names: ClientNames): string => {
  const params = sentParams(call.params);
  const fields = params.map(([name, value]) => `${IDENTIFIER.test(name) ? name : jsString(name)}: ${isInteger(names, name, value) ? value : jsString(value)}`);
  const args = names.method === ACCOUNT_CLIENT_NAMES.method ? "" : `{ ${fields.join(", ")} }`;
  return [
    `// Node.js 22+ as an ES module, with @social-lookup/client (clients/typescript); the key comes from $${KEY_ENV_VAR}.`,
    'import { SocialLookup } from "@social-lookup/client";',
    "",
    `const client = new SocialLookup({ apiKey: process.env.${KEY_ENV_VAR}, baseUrl: ${jsString(baseOf(call))} });`,
    `const answer = await client.${names.method}(${args === "{  }" ? "{}" : args});`,
    "console.log(`charged ${answer.credits.charged} credits, ${answer.credits.remaining} left`);",
    "console.log(JSON.stringify(answer.data, null, 2));",
  ].join("\n");
};

/** Python client (Python 3.10+, standard library only). */
export const pythonClientSnippet = (call: ApiCall, names: ClientNames): string => {
  const params = sentParams(call.params);
  const plain = params.filter(([name]) => IDENTIFIER.test(name) && !name.includes("$") && !PYTHON_KEYWORDS.has(name));
  const other = params.filter((param) => !plain.includes(param));
  const args = [
    ...plain.map(([name, value]) => `${name}=${isInteger(names, name, value) ? value : pythonString(value)}`),
    ...(other.length === 0 ? [] : [`**{${other.map(([name, value]) => `${pythonString(name)}: ${pythonString(value)}`).join(", ")}}`]),
  ];
  return [
    `# Python 3.10+ with the social_lookup client (clients/python); the key comes from $${KEY_ENV_VAR}.`,
    "import json",
    "import os",
    "",
    "from social_lookup import SocialLookup",
    "",
    `client = SocialLookup(api_key=os.environ[${pythonString(KEY_ENV_VAR)}], base_url=${pythonString(baseOf(call))})`,
    `answer = client.${names.python}(${args.join(", ")})`,
    'print(f"charged {answer.credits.charged} credits, {answer.credits.remaining} left")',
    "print(json.dumps(answer.data, indent=2, ensure_ascii=False))",
  ].join("\n");
};
