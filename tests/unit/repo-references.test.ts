import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The repository explains itself: a reader can follow every reference in its code and docs.
 * No file points at notes outside the repository or at a tracker's issue numbers; the decisions
 * the code relies on are in docs/decisions.md, and a citation of a docs section by its heading
 * (`docs/<file>.md "Heading"`) names a heading that exists.
 */
const root = path.resolve(__dirname, "../..");
const SELF = "tests/unit/repo-references.test.ts";
const TEXT_FILE = /\.(ts|tsx|mts|mjs|cjs|js|sql|sh|md|ya?ml)$/;

type Rule = { name: string; pattern: RegExp; allowedIn?: (file: string, line: string) => boolean };

const RULES: Rule[] = [
  { name: "a path outside the repository (../shared)", pattern: /(\.\.|\/work)\/shared\b/ },
  {
    name: "decisions.md other than docs/decisions.md",
    pattern: /(?<!docs\/)\bdecisions\.md\b/,
    // Inside docs/ a Markdown link target is relative to docs/ itself.
    allowedIn: (file, line) => file.startsWith("docs/") && !line.replace(/\]\(decisions\.md(#[\w-]+)?\)/g, "").match(/(?<!docs\/)\bdecisions\.md\b/),
  },
  { name: "the original API's description file", pattern: /lookup-api-v1\.md/ },
  { name: "an issue number", pattern: /\bissue\s+#?\d+/i },
];

const trackedFiles = (): string[] =>
  execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((file) => TEXT_FILE.test(file) && file !== SELF && fs.existsSync(path.join(root, file)));

const headingsOf = (file: string): Set<string> =>
  new Set(
    fs
      .readFileSync(path.join(root, file), "utf8")
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#{1,6} /, "").trim()),
  );

describe("references in the repository", () => {
  const files = trackedFiles();

  it("finds the tracked sources and docs", () => {
    expect(files).toContain("docs/decisions.md");
    expect(files).toContain("lib/api/pipeline.ts");
  });

  it("cite nothing a reader of the repository cannot open: no notes outside it, no issue numbers", () => {
    const problems: string[] = [];
    for (const file of files) {
      fs.readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .forEach((line, index) => {
          for (const rule of RULES) {
            if (rule.pattern.test(line) && !(rule.allowedIn?.(file, line) ?? false)) {
              problems.push(`${file}:${index + 1}: ${rule.name}: ${line.trim()}`);
            }
          }
        });
    }
    expect(problems).toEqual([]);
  });

  it("cite docs sections by headings that exist", () => {
    const citation = /docs\/([\w-]+\.md) "([^"]+)"/g;
    const headings = new Map<string, Set<string>>();
    const problems: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), "utf8");
      for (const [, doc = "", heading = ""] of text.matchAll(citation)) {
        const docPath = `docs/${doc}`;
        if (!fs.existsSync(path.join(root, docPath))) {
          problems.push(`${file}: ${docPath} does not exist`);
          continue;
        }
        const known = headings.get(docPath) ?? headingsOf(docPath);
        headings.set(docPath, known);
        if (!known.has(heading)) problems.push(`${file}: ${docPath} has no heading "${heading}"`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("every decision cited from the code has its section in docs/decisions.md", () => {
    const decisions = headingsOf("docs/decisions.md");
    for (const heading of ["Envelope and headers", "Order of checks", "Credits", "Parameters", "Keys", "Records", "Transport", "Versioning", "Bulk, agents and keys", "Isolation"]) {
      expect(decisions, heading).toContain(heading);
    }
  });
});
