import type { ReactNode } from "react"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"

export interface Column<T> {
  header: string
  cell: (row: T) => ReactNode
  /** Right-aligned, tabular figures. */
  numeric?: boolean
  className?: string
  testId?: string
}

/** A statement's summary table (per asset, per market): one row per item, the columns given; no links in it, so its box takes the focus to scroll at 390 px. */
export function SummaryTable<T>({
  caption,
  minWidth,
  rows,
  rowKey,
  rowProps,
  columns,
}: {
  caption: string
  minWidth: string
  rows: readonly T[]
  rowKey: (row: T) => string
  rowProps: (row: T) => Record<`data-${string}`, string>
  columns: readonly Column<T>[]
}) {
  return (
    <Table caption={caption} framed focusable density="compact" tableClassName={minWidth}>
      <TableHead>
        {columns.map((c) => (
          <Th key={c.header} align={c.numeric ? "right" : undefined}>
            {c.header}
          </Th>
        ))}
      </TableHead>
      <TableBody>
        {rows.map((row) => (
          <Tr key={rowKey(row)} {...rowProps(row)}>
            {columns.map((c) => (
              <Td key={c.header} align={c.numeric ? "right" : undefined} className={[c.numeric ? "tabular" : "", c.className ?? ""].join(" ").trim() || undefined} data-testid={c.testId}>
                {c.cell(row)}
              </Td>
            ))}
          </Tr>
        ))}
      </TableBody>
    </Table>
  )
}
