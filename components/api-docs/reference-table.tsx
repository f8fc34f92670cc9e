import type { ReactNode } from "react";
import { Table, TableBody, TableCell, TableHeaderRow, TableRow } from "@/components/ui/table";

/** A column of a reference table: its header, its cells' classes, and what a row shows in it. */
export type ReferenceColumn<Row> = { label: string; className?: string; cell: (row: Row) => ReactNode };

/** A table of the API reference (headers, parameters, responses): one row per item, one cell per column. */
export function ReferenceTable<Row>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: readonly ReferenceColumn<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
}) {
  return (
    <Table caption={caption}>
      <TableHeaderRow columns={columns.map((column) => column.label)} />
      <TableBody>
        {rows.map((row) => (
          <TableRow key={rowKey(row)}>
            {columns.map((column) => (
              <TableCell key={column.label} className={column.className}>
                {column.cell(row)}
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
