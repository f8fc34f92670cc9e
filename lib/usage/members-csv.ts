import { csvLine, type CsvValue } from "@/lib/export/csv";
import type { Day } from "./period";
import type { UsageGroup } from "./summary";

/**
 * The usage of a range by member as CSV (kind=members of the export): one line per member who
 * made the keys, most credits first, as the summary's member groups have them. A handful of
 * lines, so one chunk; the same RFC 4180 writer (and formula defusing) as the other exports.
 */
export const MEMBER_COLUMNS = ["from", "to", "member_id", "member_name", "member_email", "requests", "successful", "failed", "credits"] as const;

const values = (group: UsageGroup, range: { from: Day; to: Day }): CsvValue[] => [
  range.from,
  range.to,
  group.id,
  group.member?.name ?? group.label,
  group.member?.email ?? "",
  group.requests,
  group.successful,
  group.failed,
  group.credits,
];

export const membersCsv = (
  groups: readonly UsageGroup[],
  range: { from: Day; to: Day },
  options: { leading?: string } = {},
): ReadableStream<Uint8Array> => {
  const text = (options.leading ?? "") + csvLine(MEMBER_COLUMNS) + groups.map((group) => csvLine(values(group, range))).join("");
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
};
