"use client"

import { Amount } from "@/components/ui/amount"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useBalancesQuery } from "@/lib/queries/profiles"
import { parseMarket } from "@/lib/schemas/assets"
import type { Balance } from "@/lib/schemas/records"

function BalanceRows({ balances }: { balances: readonly Balance[] }) {
  return (
    <table className="w-full text-sm">
      <thead>
        <tr className="text-left text-xs uppercase tracking-wide text-slate-600">
          <th scope="col" className="py-1 pr-2 font-semibold">
            Asset
          </th>
          <th scope="col" className="py-1 pr-2 text-right font-semibold">
            Available
          </th>
          <th scope="col" className="py-1 text-right font-semibold">
            In trades
          </th>
        </tr>
      </thead>
      <tbody>
        {balances.map((b) => (
          <tr key={b.asset} className="border-t border-slate-100" data-testid={`balance-${b.asset}`}>
            <th scope="row" className="py-1 pr-2 text-left font-medium">
              {b.asset}
            </th>
            <td className="py-1 pr-2 text-right" data-testid="balance-available">
              <Amount value={b.available} />
            </td>
            <td className="py-1 text-right">
              <Amount value={b.trading} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** The profile's balances: the chosen market's two assets first, the rest folded away. */
export function Balances({ profileId, market }: { profileId: string | null; market: string }) {
  const balances = useBalancesQuery(profileId)
  const assets = parseMarket(market)
  const list = balances.data ?? []
  const mine = list.filter((b) => b.asset === assets?.base || b.asset === assets?.quote)
  const others = list.filter((b) => !mine.includes(b))
  return (
    <Card title="Balances">
      {balances.error ? <ProblemAlert error={balances.error} /> : null}
      {balances.isPending && profileId ? <p className="text-sm text-slate-600">Loading balances…</p> : null}
      {list.length > 0 ? (
        <div className="space-y-3">
          <BalanceRows balances={mine} />
          {others.length > 0 ? (
            <details>
              <summary className="cursor-pointer text-sm font-medium text-slate-800">All balances ({list.length})</summary>
              <div className="mt-2">
                <BalanceRows balances={others} />
              </div>
            </details>
          ) : null}
        </div>
      ) : null}
    </Card>
  )
}
