"use client"

import { memo } from "react"
import { Amount } from "@/components/ui/amount"
import { MarketPrice } from "@/components/ui/market-price"
import { StatusBadge } from "@/components/ui/badge"
import { Card } from "@/components/ui/card"
import { cn } from "@/components/ui/cn"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { formatTimestamp } from "@/components/ui/timestamp"
import { useExecutionsInfiniteQuery } from "@/lib/queries/executions"

const SHOWN = 10
const NO_FILTERS = {}

/** The profile's latest executions, newest first; refreshed when one is placed or settles. */
export const RecentTrades = memo(function RecentTrades({ profileId }: { profileId: string | null }) {
  const list = useExecutionsInfiniteQuery(profileId, NO_FILTERS)
  const items = (list.data?.pages[0]?.items ?? []).slice(0, SHOWN)
  return (
    <Card title="Recent trades" className="min-w-0">
      {list.error ? <ProblemAlert error={list.error} className="mb-2" /> : null}
      <Table
        caption="The profile's latest executions, newest first"
        density="compact"
        testId="recent-trades"
        className="-mx-2 w-[calc(100%+1rem)]"
        after={
          list.isPending && profileId ? (
            <p className="px-2 py-1 text-sm text-slate-600">Loading trades…</p>
          ) : list.data && items.length === 0 ? (
            <p className="px-2 py-1 text-sm text-slate-600">No trades for this profile yet.</p>
          ) : null
        }
      >
        <TableHead>
          <Th>Time (UTC)</Th>
          <Th>Side</Th>
          <Th>Market</Th>
          <Th align="right">Amount</Th>
          <Th align="right" className="hidden sm:table-cell">
            Price
          </Th>
          <Th>Status</Th>
        </TableHead>
        <TableBody>
          {items.map((e) => (
            <Tr key={e.id} data-testid="recent-trade" data-ref-id={e.ref_id} className="align-middle">
              <Td className="text-xs">
                {/* The time of day (UTC) to the second; the full time on hover and in dateTime. */}
                <time dateTime={e.created_at} title={formatTimestamp(e.created_at)} className="tabular whitespace-nowrap">
                  {formatTimestamp(e.created_at).slice(11, 19)}
                </time>
              </Td>
              <Td className={cn("font-semibold", e.side === "BUY" ? "text-emerald-800" : "text-red-700")}>
                <span aria-hidden>{e.side === "BUY" ? "▲ " : "▼ "}</span>
                {e.side === "BUY" ? "Buy" : "Sell"}
              </Td>
              <Td>{e.market}</Td>
              <Td align="right">
                <Amount value={e.base_amount} asset={e.base_asset} />
              </Td>
              <Td align="right" className="hidden sm:table-cell">
                <MarketPrice value={e.price} market={e.market} />
              </Td>
              <Td>
                <StatusBadge status={e.status} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </Card>
  )
})
