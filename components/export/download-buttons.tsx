"use client";

import { UTF8_BOM } from "@/lib/export/bom";
import { toCsv, type CsvColumn } from "@/lib/export/csv";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import { Icon } from "@/components/ui/icon";

export type DownloadButtonsProps<Row> = {
  /** Rows to export, read when a button is pressed (so a long list is only serialised on demand). */
  rows: () => readonly Row[];
  /** How many rows an export would hold now; 0 disables the buttons. */
  rowCount: number;
  csvColumns: readonly CsvColumn<Row>[];
  /** JSON form of one row; the rows themselves by default. */
  toJsonRow?: (row: Row) => unknown;
  /** File name without extension, e.g. "followers-2000000001". */
  fileName: string;
  /** What the rows are, for the accessible labels: "followers", "publications". */
  noun: string;
  className?: string;
};

/** Saves text as a file through a temporary object URL: everything stays in the browser. */
const saveFile = (text: string, fileName: string, type: string) => {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.rel = "noopener";
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel the download in some browsers; a short delay is enough.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
};

/** A file-name part safe on every OS: letters, digits, dot, dash, underscore. */
export const safeFileName = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "");

const numberFormat = new Intl.NumberFormat("en-US");

/** "Export CSV" / "Export JSON" of the rows loaded so far, built client-side. */
export function DownloadButtons<Row>({
  rows,
  rowCount,
  csvColumns,
  toJsonRow,
  fileName,
  noun,
  className,
}: DownloadButtonsProps<Row>) {
  const disabled = rowCount === 0;
  const label = `${numberFormat.format(rowCount)} loaded ${noun}`;

  const exports = [
    { format: "CSV", save: () => saveFile(`${UTF8_BOM}${toCsv(rows(), csvColumns)}`, `${fileName}.csv`, "text/csv;charset=utf-8") },
    {
      format: "JSON",
      save: () => {
        const current = rows();
        const json = JSON.stringify(toJsonRow ? current.map(toJsonRow) : current, null, 2);
        saveFile(`${json}\n`, `${fileName}.json`, "application/json;charset=utf-8");
      },
    },
  ];

  return (
    <div className={cx("flex flex-wrap items-center gap-2", className)} role="group" aria-label={`Export ${noun}`}>
      {exports.map(({ format, save }) => (
        <Button key={format} variant="secondary" size="sm" data-testid={`export-${format.toLowerCase()}`} disabled={disabled} onClick={save}>
          <Icon name="download" className="size-3.5" />
          Export {format}
          {/* The name starts with the visible text (voice control users say what they see). */}
          <span className="sr-only"> of {label}</span>
        </Button>
      ))}
    </div>
  );
}
