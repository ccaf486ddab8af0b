"use client"

import dynamic from "next/dynamic"
import Link from "next/link"
import { AllocationLegend } from "@/components/charts/allocation-legend"
import { SLICE_COLOURS } from "@/components/charts/palette"
import { TotalTrend } from "@/components/overview/total-trend"
import { Badge, StatusBadge } from "@/components/ui/badge"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { formatAmount, formatCount, formatPercent, formatPrice, formatUsd } from "@/lib/format"
import { toDecimal } from "@/lib/money"
import { usePendingForYouQuery } from "@/lib/queries/approvals"
import { useOverviewQuery } from "@/lib/queries/market-data"
import type { ActivityRow, Overview as OverviewData } from "@/lib/schemas/overview"

// The donut (d3-shape) loads after the first paint into a box of its own size; its legend and table come with the page.
const AllocationDonut = dynamic(() => import("@/components/charts/allocation-chart").then((m) => m.AllocationDonut), {
  ssr: false,
  loading: () => <div className="h-48 w-48" aria-hidden="true" />,
})

/** One colour per slice: past the palette's length the smallest slices become one "Other". */
function distinctSlices(slices: { asset: string; value: string; share: string }[]) {
  if (slices.length <= SLICE_COLOURS.length) return slices
  const kept = slices.slice(0, SLICE_COLOURS.length - 1)
  const rest = slices.slice(SLICE_COLOURS.length - 1)
  const sum = (key: "value" | "share") => rest.reduce((n, s) => n.plus(toDecimal(s[key])), toDecimal("0")).toFixed()
  return [...kept, { asset: "Other", value: sum("value"), share: sum("share") }]
}

/** The desk at a glance: what we hold and what it is worth, how prices moved, what happened today. */
export function Overview({ isAdmin, canApprove, initial }: { isAdmin: boolean; canApprove: boolean; initial: OverviewData | null }) {
  // The server renders the first overview, so the page does not jump when it arrives.
  const { data, error, isPending } = useOverviewQuery(initial ? { initialData: initial, initialDataUpdatedAt: Date.parse(initial.priced_at) } : undefined)
  const slices = distinctSlices(
    (data?.allocation ?? []).flatMap((h) => (h.value_usd && h.share && toDecimal(h.value_usd).gt(0) ? [{ asset: h.asset, value: h.value_usd, share: h.share }] : [])),
  )
  if (isPending) return <p className="text-sm text-slate-600">Loading the overview…</p>
  if (!data) return <ProblemAlert error={error} />
  return (
    <div className="space-y-6">
      {error ? <ProblemAlert error={error} /> : null}
      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Total holdings" className="lg:col-span-1">
          <p className="tabular text-3xl font-semibold" data-testid="total-usd" aria-live="polite">
            ${formatUsd(data.total_usd)}
          </p>
          {data.total_history ? <TotalTrend history={data.total_history} /> : null}
          <p className="mt-1 text-sm text-slate-600">
            USD at current mids, priced <Timestamp value={data.priced_at} />
            {data.stale ? <Badge tone="warning" className="ml-2">stale</Badge> : null}
          </p>
          {data.profiles.every((p) => p.holdings.length === 0) ? <EmptyHoldings isAdmin={isAdmin} /> : null}
          <ul className="mt-3 space-y-1 text-sm" data-testid="profile-totals">
            {data.profiles.map((p) => (
              <li key={p.id} className="flex justify-between gap-4">
                <span>{p.nickname}</span>
                <span className="tabular font-medium">${formatUsd(p.total_usd)}</span>
              </li>
            ))}
          </ul>
        </Card>
        <Card title="Allocation by asset" className="lg:col-span-2">
          {slices.length === 0 ? (
            <p className="text-sm text-slate-600">No holdings with a price yet.</p>
          ) : (
            <figure className="flex flex-wrap items-center gap-6" data-testid="allocation-chart">
              <div className="h-48 w-48 shrink-0">
                <AllocationDonut slices={slices} />
              </div>
              <figcaption>
                <AllocationLegend slices={slices} />
              </figcaption>
            </figure>
          )}
          <details className="mt-3">
            <summary className="cursor-pointer text-sm text-blue-700 underline">Show holdings as a table</summary>
            <HoldingsTable data={data} />
          </details>
        </Card>
      </div>
      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="24-hour change">
          <Table caption="24-hour change by asset" density="compact" testId="changes">
            <TableHead>
              <Th>Asset</Th>
              <Th align="right">Price (USD)</Th>
              <Th align="right">Change</Th>
            </TableHead>
            <TableBody>
              {data.changes.map((c) => (
                <Tr key={c.market}>
                  <Td>{c.asset}</Td>
                  <Td align="right" className="tabular" data-num="price">{formatPrice(c.current_price, { round: true })}</Td>
                  <Td align="right" className={c.change_percent.startsWith("-") ? "tabular text-red-700" : "tabular text-emerald-700"}>
                    {formatPercent(c.change_percent, { signed: true })} %
                  </Td>
                </Tr>
              ))}
            </TableBody>
          </Table>
        </Card>
        <Card title="Today through the console">
          <Activity label="Executions" rows={data.activity.executions} testId="activity-executions" />
          <Activity label="Conversions" rows={data.activity.conversions} testId="activity-conversions" />
          <p className="mt-2 text-xs text-slate-600">
            Since <Timestamp value={data.activity.since} />
          </p>
          {isAdmin || canApprove ? <Attention data={data} isAdmin={isAdmin} canApprove={canApprove} /> : null}
        </Card>
        <Card title="Latest activity">
          <ol className="space-y-2 text-sm" data-testid="feed" aria-live="polite" aria-relevant="additions">
            {data.feed.length === 0 ? (
              <li className="text-slate-600">
                Nothing yet: orders placed on the <Link className="text-blue-700 underline" href="/trade">trade desk</Link>, conversions and deposits appear here as they happen.
              </li>
            ) : null}
            {data.feed.map((item) => (
              <li key={`${item.kind}-${item.id}`} className="flex flex-col gap-0.5 border-b border-slate-100 pb-2" data-testid="feed-item" data-id={item.id}>
                <span className="flex items-center justify-between gap-2">
                  <span className="font-medium">
                    {item.kind === "execution" ? "Execution" : item.kind === "conversion" ? "Conversion" : "Deposit"} · {item.profile_name}
                  </span>
                  <StatusBadge status={item.status} />
                </span>
                <span className="tabular">{item.summary}</span>
                <span className="text-xs text-slate-600">
                  <Timestamp value={item.created_at} />
                </span>
              </li>
            ))}
          </ol>
        </Card>
      </div>
    </div>
  )
}

/** Nothing held anywhere: where to start, rather than a row of zeros. */
function EmptyHoldings({ isAdmin }: { isAdmin: boolean }) {
  return (
    <div className="mt-3 rounded-md border border-dashed border-slate-300 p-3 text-sm" data-testid="overview-empty">
      <p className="font-medium">No profile holds anything yet.</p>
      <p className="mt-1 text-slate-700">
        {isAdmin ? (
          <>
            Deposit funds on the <Link className="text-blue-700 underline" href="/sandbox">Sandbox</Link> page (sandbox mode), then trade on the{" "}
          </>
        ) : (
          <>An admin can deposit funds on the Sandbox page (sandbox mode); then trade on the </>
        )}
        <Link className="text-blue-700 underline" href="/trade">
          trade desk
        </Link>
        . Its charts already show the sandbox&apos;s generated price history, 90 days back.
      </p>
    </div>
  )
}

function Activity({ label, rows, testId }: { label: string; rows: ActivityRow[]; testId: string }) {
  const total = rows.reduce((n, r) => n + r.count, 0)
  return (
    <div className="mb-3" data-testid={testId}>
      <h3 className="text-sm font-semibold">
        {label}: <span data-testid="count">{total}</span>
      </h3>
      {rows.length > 0 ? (
        <Table caption={`${label} today by status`} density="compact">
          <TableHead>
            <Th>Status</Th>
            <Th align="right">Count</Th>
            <Th align="right">Notional (USD)</Th>
          </TableHead>
          <TableBody>
            {rows.map((r) => (
              <Tr key={r.status}>
                <Td>
                  <StatusBadge status={r.status} />
                </Td>
                <Td align="right" className="tabular">{formatCount(r.count)}</Td>
                <Td align="right" className="tabular">{formatUsd(r.notional_usd)}</Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </div>
  )
}

function Attention({ data, isAdmin, canApprove }: { data: OverviewData; isAdmin: boolean; canApprove: boolean }) {
  const n = data.unresolved_intents ?? 0
  return (
    <div className="mt-3 border-t border-slate-200 pt-3 text-sm" data-testid="attention">
      <h3 className="font-semibold">Needs attention</h3>
      {canApprove ? <PendingApprovals /> : null}
      {!isAdmin ? null : n === 0 ? (
        <p className="text-slate-600">No unresolved intents.</p>
      ) : (
        <p>
          <Link className="text-blue-700 underline" href="/audit?state=UNKNOWN">
            {n} unresolved {n === 1 ? "intent" : "intents"}
          </Link>{" "}
          (outcome not known yet)
        </p>
      )}
    </div>
  )
}

/** Requests that wait for this approver: the same count as the nav badge. */
function PendingApprovals() {
  const count = usePendingForYouQuery().data?.pending_for_you
  if (count === undefined) return null
  if (count === 0) return <p className="text-slate-600" data-testid="attention-approvals">No requests wait for your approval.</p>
  return (
    <p data-testid="attention-approvals">
      <Link className="text-blue-700 underline" href="/approvals">
        {count} {count === 1 ? "request waits" : "requests wait"} for your approval
      </Link>
    </p>
  )
}

function HoldingsTable({ data }: { data: OverviewData }) {
  return (
    <Table caption="Holdings by profile and asset, valued in USD" density="compact" testId="holdings-table" className="mt-2">
      <TableHead>
        <Th>Profile</Th>
        <Th>Asset</Th>
        <Th align="right">Amount</Th>
        <Th align="right">Price (USD)</Th>
        <Th align="right">Value (USD)</Th>
      </TableHead>
      <TableBody>
        {data.profiles.flatMap((p) =>
          p.holdings.map((h) => (
            <Tr key={`${p.id}-${h.asset}`}>
              <Td>{p.nickname}</Td>
              <Td>{h.asset}</Td>
              <Td align="right" className="tabular" data-num="amount" data-asset={h.asset}>{formatAmount(h.amount, h.asset)}</Td>
              <Td align="right" className="tabular" data-num="price">{h.price_usd ? formatPrice(h.price_usd, { round: true }) : "—"}</Td>
              <Td align="right" className="tabular">{h.value_usd ? formatUsd(h.value_usd) : "no price"}</Td>
            </Tr>
          )),
        )}
      </TableBody>
    </Table>
  )
}
