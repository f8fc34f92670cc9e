import { KEY_ENV_VAR } from "./call";
import { jsString, pythonString, shellQuote } from "./quote";

/**
 * Snippets for /v1/batches on the API page: start a batch, wait for it, download its results.
 * Like the lookup snippets they read the key from $SOCIAL_LOOKUP_API_KEY and never contain one.
 */
export type BatchCall = { baseUrl: string; operation: string; inputs: readonly string[] };

const base = (baseUrl: string) => `${baseUrl.replace(/\/$/, "")}/v1/batches`;

export const batchCurlSnippet = (call: BatchCall): string => {
  const body = JSON.stringify({ operation: call.operation, inputs: call.inputs });
  return [
    `# Start the batch (202): note data.id`,
    `curl -sS -X POST ${shellQuote(base(call.baseUrl))} \\`,
    `  -H "Authorization: Bearer $${KEY_ENV_VAR}" -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(body)}`,
    "",
    `# Its progress (free; counts towards the key's per-second limit)`,
    `curl -sS ${shellQuote(`${base(call.baseUrl)}/BATCH_ID`)} -H "Authorization: Bearer $${KEY_ENV_VAR}"`,
    "",
    `# Its results, once done: NDJSON (or ?format=csv)`,
    `curl -sS ${shellQuote(`${base(call.baseUrl)}/BATCH_ID/results?format=ndjson`)} -H "Authorization: Bearer $${KEY_ENV_VAR}"`,
  ].join("\n");
};

export const batchFetchSnippet = (call: BatchCall): string =>
  [
    `// Node.js 18+ as an ES module; the key comes from $${KEY_ENV_VAR}.`,
    `const base = ${jsString(base(call.baseUrl))};`,
    `const headers = { Authorization: \`Bearer \${process.env.${KEY_ENV_VAR}}\`, "Content-Type": "application/json" };`,
    `const created = await (await fetch(base, { method: "POST", headers, body: JSON.stringify({ operation: ${jsString(call.operation)}, inputs: ${JSON.stringify(call.inputs)} }) })).json();`,
    "let batch = created.data;",
    'while (batch.status === "queued" || batch.status === "running") {',
    "  await new Promise((resolve) => setTimeout(resolve, 2000));",
    "  batch = (await (await fetch(`${base}/${batch.id}`, { headers })).json()).data;",
    "}",
    "console.log(batch.status, batch.creditsSpent);",
    "console.log(await (await fetch(`${base}/${batch.id}/results?format=ndjson`, { headers })).text());",
  ].join("\n");

export const batchPythonSnippet = (call: BatchCall): string =>
  [
    `# Python 3, standard library only; the key comes from $${KEY_ENV_VAR}.`,
    "import json, os, time, urllib.request",
    "",
    `base = ${pythonString(base(call.baseUrl))}`,
    `headers = {"Authorization": f"Bearer {os.environ['${KEY_ENV_VAR}']}", "Content-Type": "application/json"}`,
    "",
    "def call(url, body=None):",
    '    data = None if body is None else json.dumps(body).encode()',
    '    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=60) as response:',
    "        return response.read()",
    "",
    `batch = json.loads(call(base, {"operation": ${pythonString(call.operation)}, "inputs": ${JSON.stringify(call.inputs)}}))["data"]`,
    'while batch["status"] in ("queued", "running"):',
    "    time.sleep(2)",
    '    batch = json.loads(call(f"{base}/{batch[\'id\']}"))["data"]',
    'print(batch["status"], batch["creditsSpent"])',
    'print(call(f"{base}/{batch[\'id\']}/results?format=ndjson").decode())',
  ].join("\n");
