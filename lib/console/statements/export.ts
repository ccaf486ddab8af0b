import "server-only"
import { csvResponse } from "@/lib/console/csv"
import { exportFilename } from "@/lib/console/exports"
import type { Statement, StatementLeg, StatementMovement } from "@/lib/console/statements/types"

/**
 * A statement as CSV: one row per leg of each movement, oldest first. Columns carry the
 * names of the service's Profile Transactions report where they mean the same
 * (`id`, `resource_id`, `ref_id`, `orchestration_id`, `price`, `base_amount`,
 * `quote_amount`, `fee`); amounts as the statement has them (the asset's decimals).
 */
type Row = { m: StatementMovement; leg: StatementLeg; index: number }

export const STATEMENT_CSV_COLUMNS: readonly { header: string; value: (r: Row) => unknown }[] = [
  { header: "id", value: (r) => `${r.m.id}:${r.index}` },
  { header: "resource_id", value: (r) => r.m.id },
  { header: "kind", value: (r) => r.m.kind },
  { header: "description", value: (r) => r.m.label },
  { header: "time", value: (r) => r.m.at },
  { header: "ref_id", value: (r) => r.m.ref_id },
  { header: "orchestration_id", value: (r) => (r.m.kind === "orchestration" ? r.m.id : undefined) },
  { header: "asset", value: (r) => r.leg.asset },
  { header: "direction", value: (r) => r.leg.direction },
  { header: "amount", value: (r) => r.leg.amount },
  { header: "fee", value: (r) => r.leg.fee },
  { header: "total", value: (r) => r.leg.total },
  { header: "balance", value: (r) => r.leg.balance },
  { header: "market", value: (r) => r.m.trade?.market },
  { header: "side", value: (r) => r.m.trade?.side },
  { header: "price", value: (r) => r.m.trade?.price },
  { header: "base_amount", value: (r) => r.m.trade?.base_amount },
  { header: "quote_amount", value: (r) => r.m.trade?.quote_amount },
  { header: "placed_by", value: (r) => r.m.placed_by ?? "placed elsewhere" },
]

const CHUNK = 500

/** The statement's movements, streamed in chunks of rows (the statement itself is built before the answer starts). */
export function statementCsv(statement: Statement): Response {
  return csvResponse({
    filename: exportFilename(`statement-${statement.from.slice(0, 10)}`),
    columns: STATEMENT_CSV_COLUMNS,
    // eslint-disable-next-line @typescript-eslint/require-await -- an async iterable is what csvResponse streams; the rows are already here
    pages: async function* () {
      let chunk: Row[] = []
      for (const m of statement.movements) {
        for (const [index, leg] of m.legs.entries()) {
          chunk.push({ m, leg, index })
          if (chunk.length >= CHUNK) {
            yield chunk
            chunk = []
          }
        }
      }
      if (chunk.length > 0) yield chunk
    },
  })
}
