import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { drawLayers, layersOf } from "../../scripts/check-layers";

/** docs/architecture.md draws the layers the rule file states, and every lib folder has a layer. */
const root = path.resolve(__dirname, "../..");

describe("the layers", () => {
  it("docs/architecture.md shows the layers of .dependency-cruiser.cjs as they are", () => {
    const doc = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8");
    const drawn = /<!-- layers:begin -->\n([\s\S]*?)\n<!-- layers:end -->/.exec(doc)?.[1];
    expect(drawn).toBe(drawLayers());
  });

  it("every folder and file of lib/ is in exactly one layer", () => {
    const named = layersOf().layers.flatMap((layer) => layer.folders);
    expect(new Set(named).size).toBe(named.length);
    const present = fs
      .readdirSync(path.join(root, "lib"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")))
      .map((entry) => `lib/${entry.name}`);
    expect(present.filter((entry) => !named.includes(entry))).toEqual([]);
  });
});
