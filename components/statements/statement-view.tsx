import Link from "next/link"
import { Badge } from "@/components/ui/badge"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp, formatTimestamp } from "@/components/ui/timestamp"
import { SummaryTable } from "@/components/statements/summary-table"
import { ListState } from "@/components/ui/list-state"
import type { AssetSummary, Statement } from "@/lib/console/statements/types"
import { formatAmount, formatCount, formatPrice } from "@/lib/format"

const TIE_OUT_WORDS: Record<Statement["tie_out"], string> = {
  ties_out: "Ties out",
  difference: "Does not tie out",
  not_claimed: "Not claimed",
}

/** "2026-11-20 09:00:00 UTC" → "09:00:00 UTC" when the day is the period's only day. */
function timeOf(value: string): string {
  return formatTimestamp(value)
}

function basisWords(basis: Statement["opening_basis"], at: string | null): string {
  if (basis === "observed") return at ? `observed (snapshot read ${formatTimestamp(at)})` : "observed"
  return at ? `reconstructed from the balances observed ${formatTimestamp(at)} and the records between` : "reconstructed"
}

/** One profile's statement: the tie-out, totals per asset, unexplained changes, movements, records in flight, markets. */
export function StatementView({ statement }: { statement: Statement }) {
  const s = statement
  const tone = s.tie_out === "ties_out" ? "success" : s.tie_out === "difference" ? "danger" : "warning"
  return (
    <div className="space-y-6">
      <section aria-labelledby="tie-out-heading" className="grid gap-3 sm:grid-cols-3" data-testid="statement-tiles">
        <div className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
          <h2 id="tie-out-heading" className="text-sm font-medium text-slate-700">
            Tie-out
          </h2>
          <p className="mt-1 text-lg font-semibold" data-testid="tie-out" data-result={s.tie_out}>
            <Badge tone={tone}>{TIE_OUT_WORDS[s.tie_out]}</Badge>
          </p>
          {s.tie_out === "not_claimed" ? <p className="mt-1 text-xs text-slate-700">An end of the period is reconstructed, not observed: no tie-out is claimed.</p> : null}
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
          <h2 className="text-sm font-medium text-slate-700">Opening</h2>
          <p className="mt-1 text-xs text-slate-800" data-testid="opening-basis">
            {basisWords(s.opening_basis, s.opening_observed_at)}
          </p>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
          <h2 className="text-sm font-medium text-slate-700">Closing</h2>
          <p className="mt-1 text-xs text-slate-800" data-testid="closing-basis">
            {basisWords(s.closing_basis, s.closing_observed_at)}
          </p>
        </div>
      </section>

      {s.unexplained.length > 0 ? (
        <section aria-labelledby="unexplained-heading" className="rounded-lg border border-red-300 bg-red-50 p-3">
          <h2 id="unexplained-heading" className="text-sm font-semibold text-red-900">
            Not explained by any record
          </h2>
          <ul className="mt-1 space-y-1 text-sm text-red-900">
            {s.unexplained.map((u) => (
              <li key={`${u.asset} ${u.from}`} data-testid="unexplained" data-asset={u.asset} data-amount={u.amount}>
                {formatAmount(u.amount, u.asset)} {u.asset} not explained by any record between {timeOf(u.from)} and {timeOf(u.to)}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <SummaryTable
        caption="Per asset: opening, credits, debits, fees, closing"
        minWidth="min-w-[44rem]"
        rows={s.assets}
        rowKey={(a) => a.asset}
        rowProps={(a) => ({ "data-testid": "asset-row", "data-asset": a.asset, "data-tie-out": a.tie_out })}
        columns={[
          { header: "Asset", cell: (a) => a.asset, className: "font-medium" },
          ...(["opening", "credits", "debits", "fees", "closing"] as const).map((key) => ({ header: key.charAt(0).toUpperCase() + key.slice(1), numeric: true, cell: (a: AssetSummary) => formatAmount(a[key], a.asset) })),
          { header: "Difference", numeric: true, cell: (a) => formatAmount(a.difference, a.asset), testId: "asset-difference" },
        ]}
      />

      {s.markets.length > 0 ? (
        <SummaryTable
          caption="Trades per market and side"
          minWidth="min-w-[36rem]"
          rows={s.markets}
          rowKey={(m) => `${m.market} ${m.side}`}
          rowProps={() => ({ "data-testid": "market-row" })}
          columns={[
            { header: "Market", cell: (m) => m.market },
            { header: "Side", cell: (m) => m.side },
            { header: "Trades", numeric: true, cell: (m) => formatCount(m.count) },
            { header: "Base volume", numeric: true, cell: (m) => formatAmount(m.base_volume, m.base_asset) },
            { header: "Quote volume", numeric: true, cell: (m) => formatAmount(m.quote_volume, m.quote_asset) },
            { header: "Average price", numeric: true, cell: (m) => formatPrice(m.vwap, { round: true }) },
          ]}
        />
      ) : null}

      {s.movements.length === 0 ? (
        <ListState empty noun="movements" emptyText="No movements in this period." />
      ) : (
        <Table caption="Movements, oldest first, with the running balance of each asset" framed density="compact" tableClassName="min-w-[60rem]">
          <TableHead>
            <Th>At</Th>
            <Th>Kind</Th>
            <Th>Asset</Th>
            <Th align="right">Amount</Th>
            <Th align="right">Fee</Th>
            <Th align="right">Total</Th>
            <Th align="right">Balance</Th>
            <Th>ref_id</Th>
            <Th>Placed by</Th>
          </TableHead>
          <TableBody>
            {s.movements.flatMap((m) =>
              m.legs.map((l, i) => (
                <Tr key={`${m.id} ${i}`} data-testid="movement-row" data-kind={m.kind}>
                  <Td>{i === 0 ? <Timestamp value={m.at} /> : null}</Td>
                  <Td>
                    {i === 0 ? (
                      <Link href={m.href} className="text-blue-700 underline">
                        {m.label}
                      </Link>
                    ) : null}
                  </Td>
                  <Td>{l.asset}</Td>
                  <Td align="right" className="tabular">
                    {l.direction === "DEBIT" ? "−" : "+"}
                    {formatAmount(l.amount, l.asset)}
                  </Td>
                  <Td align="right" className="tabular">{formatAmount(l.fee, l.asset)}</Td>
                  <Td align="right" className="tabular">{formatAmount(l.total, l.asset)}</Td>
                  <Td align="right" className="tabular">{formatAmount(l.balance, l.asset)}</Td>
                  <Td className="font-mono text-xs">{i === 0 ? (m.ref_id ?? "—") : null}</Td>
                  <Td className="text-xs">{i === 0 ? (m.placed_by ?? "placed elsewhere") : null}</Td>
                </Tr>
              )),
            )}
          </TableBody>
        </Table>
      )}

      {s.in_flight.length > 0 ? (
        <SummaryTable
          caption="In flight at the period's end: placed before it, not moved by then"
          minWidth="min-w-[36rem]"
          rows={s.in_flight}
          rowKey={(r) => r.id}
          rowProps={() => ({ "data-testid": "in-flight-row" })}
          columns={[
            {
              header: "Record",
              cell: (r) => (
                <Link href={r.href} className="text-blue-700 underline">
                  {r.label}
                </Link>
              ),
            },
            { header: "Placed", cell: (r) => <Timestamp value={r.created_at} /> },
            { header: "Status", cell: (r) => r.status },
            { header: "Moved", cell: (r) => (r.moved_at ? <Timestamp value={r.moved_at} /> : "not yet") },
          ]}
        />
      ) : null}
    </div>
  )
}
