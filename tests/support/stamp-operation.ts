import { z } from "zod";
import { defineSimpleOperation } from "@/lib/operations/define";

/**
 * A test-only operation, whole in this one module: a stamp catalogue answered from memory. The
 * registry test adds it to the registry and shows that everything derived from the registry —
 * the pipeline's order of checks and settlement, usage, OpenAPI, the console's lookup route —
 * serves it without touching another file.
 */
const stampSchema = z
  .object({
    code: z.string().describe("catalogue code"),
    country: z.string(),
    year: z.number().int(),
  })
  .meta({ id: "Stamp" });

const stampDataSchema = z.object({ stamp: stampSchema }).meta({ id: "StampDetails" });

type StampData = z.infer<typeof stampDataSchema>;

/** The in-memory source: what the operation's connector knows. */
export const stamps = new Map<string, StampData["stamp"]>([
  ["GB-1840-1", { code: "GB-1840-1", country: "United Kingdom", year: 1840 }],
  ["CH-1843-2", { code: "CH-1843-2", country: "Switzerland", year: 1843 }],
]);

export const stampOperation = defineSimpleOperation<"get_stamp", StampData>({
  id: "get_stamp",
  path: "/v1/philately/get_stamp",
  costCredits: 3,
  summary: "Get a stamp by catalogue code",
  notFoundMessage: "Stamp not found",
  pageSize: null,
  params: [
    {
      name: "code",
      schema: z.string().regex(/^[A-Z]{2}-\d{4}-\d{1,3}$/).describe("catalogue code, e.g. GB-1840-1"),
      required: true,
      example: "GB-1840-1",
    },
  ],
  primaryParam: "code",
  record: stampDataSchema,
  example: { summary: "a stamp", data: { stamp: { code: "GB-1840-1", country: "United Kingdom", year: 1840 } } },
  tagDescription: "Stamp catalogue",
  label: { short: "Stamp", site: "Philately site", lookedUpBy: "Catalogue code" },
  chartColor: "oklch(70% 0.1 150)",
  upstream: { path: "v1/philately/get_stamp" },
  lookup: async (params) => {
    const stamp = params.code === undefined ? undefined : stamps.get(params.code);
    return stamp === undefined ? { found: false } : { found: true, dataJson: JSON.stringify({ stamp }), asOf: null };
  },
});
