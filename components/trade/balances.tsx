"use client"

import { Amount } from "@/components/ui/amount"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { RowHeader, Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { useBalancesQuery } from "@/lib/queries/profiles"
import { parseMarket } from "@/lib/schemas/assets"
import type { Balance } from "@/lib/schemas/records"

function BalanceRows({ balances }: { balances: readonly Balance[] }) {
  return (
    <Table density="compact">
      <TableHead>
        <Th>Asset</Th>
        <Th align="right">Available</Th>
        <Th align="right">In trades</Th>
      </TableHead>
      <TableBody>
        {balances.map((b) => (
          <Tr key={b.asset} data-testid={`balance-${b.asset}`}>
            <RowHeader>{b.asset}</RowHeader>
            <Td align="right" data-testid="balance-available">
              <Amount value={b.available} asset={b.asset} unit="" />
            </Td>
            <Td align="right">
              <Amount value={b.trading} asset={b.asset} unit="" />
            </Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
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
