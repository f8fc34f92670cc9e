import fs from "node:fs";
import path from "node:path";
import { generatedClientFiles } from "./clients/files";

/**
 * Writes the clients' generated files from the operation registry (scripts/clients/files.ts):
 * the TypeScript SDK's operation table, types and methods, the CSV writer its command line uses,
 * and the Python client's types and methods. After adding or changing an operation:
 *
 *   npx tsx scripts/generate-clients.ts           write them
 *   npx tsx scripts/generate-clients.ts --check   exit 1 when a file differs (what the unit test checks)
 */
const root = path.resolve(import.meta.dirname, "..");
const check = process.argv.includes("--check");
const stale: string[] = [];
for (const [file, content] of Object.entries(generatedClientFiles(root))) {
  const full = path.join(root, file);
  const current = fs.existsSync(full) ? fs.readFileSync(full, "utf8") : null;
  if (current === content) continue;
  stale.push(file);
  if (!check) {
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
}
if (check && stale.length > 0) {
  console.error(`error: generated client files are stale: ${stale.join(", ")}; run npx tsx scripts/generate-clients.ts`);
  process.exit(1);
}
console.log(stale.length === 0 ? "Generated client files are current." : `${check ? "Stale" : "Wrote"}: ${stale.join(", ")}`);
