import { formatFailures, formatLaneSummary, readStageRows } from "./lane-report";

/**
 * Prints a lane's summary table and, as its very last line, `N passed, N failed[, N skipped]`;
 * exits 1 when a stage failed. Usage: tsx scripts/lane-summary.ts <lane title> <lane directory>
 * (the directory holds stages.tsv and the stages' JSON reports; scripts/lane.sh writes them).
 */
const [lane, laneDir] = process.argv.slice(2);
if (lane === undefined || laneDir === undefined) {
  console.error("usage: tsx scripts/lane-summary.ts <lane title> <lane directory>");
  process.exit(2);
}
const rows = readStageRows(laneDir);
// The failed tests by name first, so that the end of a long log says what failed without a search.
const failures = formatFailures(laneDir);
if (failures !== "") console.log(failures);
console.log(formatLaneSummary(lane, rows));
process.exitCode = rows.some((row) => row.outcome === "failed") ? 1 : 0;
