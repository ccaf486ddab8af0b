"use client"

import { useRouter } from "next/navigation"
import { type FormEvent, useEffect, useMemo, useState } from "react"
import { type FilterForm, filtersFromForm, noFilters } from "@/components/executions/filters"
import { rfc3339ToUtcInput } from "@/components/executions/format"
import { ProfilePicker } from "@/components/profile/profile-picker"
import { Amount } from "@/components/ui/amount"
import { MarketPrice } from "@/components/ui/market-price"
import { StatusBadge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { IdChip } from "@/components/ui/id-chip"
import { ExportCsvLink } from "@/components/ui/export-csv-link"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { toQuery } from "@/lib/queries/api"
import { type ExecutionFilters, executionExportUrl, useExecutionsInfiniteQuery } from "@/lib/queries/executions"
import { useSelectedProfile } from "@/lib/queries/profiles"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import { EXECUTION_SIDES, EXECUTION_STATUSES } from "@/lib/schemas/constants"
import type { QuoteExecution } from "@/lib/schemas/records"

function formOf(filters: ExecutionFilters): FilterForm {
  return {
    market: filters.market ?? "",
    side: filters.side ?? "",
    status: filters.status ?? "",
    from: rfc3339ToUtcInput(filters["created_at.begin"]),
    to: rfc3339ToUtcInput(filters["created_at.end"]),
  }
}

function Filters({
  applied,
  markets,
  onApply,
}: {
  applied: ExecutionFilters
  markets: readonly string[]
  onApply: (filters: ExecutionFilters) => void
}) {
  const [errors, setErrors] = useState<Partial<Record<keyof FilterForm, string>>>({})
  const initial = formOf(applied)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    const text = (name: string) => {
      const value = data.get(name)
      return typeof value === "string" ? value : ""
    }
    const result = filtersFromForm({ market: text("market"), side: text("side"), status: text("status"), from: text("from"), to: text("to") })
    if (!result.ok) {
      setErrors(result.errors)
      return
    }
    setErrors({})
    onApply(result.filters)
  }
  return (
    <form onSubmit={submit} aria-label="Filters" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[repeat(5,minmax(0,1fr))_auto]" noValidate>
      <Field label="Market" error={errors.market}>
        {(a11y) => (
          <Select {...a11y} name="market" defaultValue={initial.market}>
            <option value="">All markets</option>
            {markets.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Side">
        {(a11y) => (
          <Select {...a11y} name="side" defaultValue={initial.side}>
            <option value="">Both sides</option>
            {EXECUTION_SIDES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Status">
        {(a11y) => (
          <Select {...a11y} name="status" defaultValue={initial.status}>
            <option value="">Any status</option>
            {EXECUTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Created from (UTC)" error={errors.from} hint="UTC, like the table; inclusive.">
        {(a11y) => <Input {...a11y} type="datetime-local" step={1} name="from" defaultValue={initial.from} />}
      </Field>
      <Field label="Created to (UTC)" error={errors.to} hint="UTC, like the table; inclusive.">
        {(a11y) => <Input {...a11y} type="datetime-local" step={1} name="to" defaultValue={initial.to} />}
      </Field>
      <div className="flex items-start gap-2 pt-6">
        <Button type="submit">Apply</Button>
        <Button
          variant="ghost"
          type="reset"
          onClick={() => {
            setErrors({})
            onApply({})
          }}
        >
          Clear
        </Button>
      </div>
    </form>
  )
}

function ExecutionRow({ execution }: { execution: QuoteExecution }) {
  const href = `/executions/${encodeURIComponent(execution.profile_id)}/${encodeURIComponent(execution.id)}`
  return (
    <Tr data-testid="execution-row" data-id={execution.id}>
      <Td>
        <Timestamp value={execution.created_at} />
      </Td>
      <Td>{execution.side}</Td>
      <Td>{execution.market}</Td>
      <Td align="right">
        <MarketPrice value={execution.price} market={execution.market} />
      </Td>
      <Td align="right">
        <Amount value={execution.base_amount} asset={execution.base_asset} />
      </Td>
      <Td align="right">
        <Amount value={execution.quote_amount} asset={execution.quote_asset} />
      </Td>
      <Td>
        <StatusBadge status={execution.status} />
      </Td>
      <Td>
        <IdChip value={execution.id} label={`execution id ${execution.id.slice(0, 8)}`} href={href} linkLabel={`Execution ${execution.id}`} />
      </Td>
    </Tr>
  )
}

/**
 * The chosen profile's executions with the service's filters, cursor paging ("Load more")
 * and a CSV export of every row the filters select. Filters live in the URL.
 */
export function ExecutionsHistory({ initialFilters, canExport }: { initialFilters: ExecutionFilters; canExport: boolean }) {
  const router = useRouter()
  const { profileId, profiles, setProfileId, error: profilesError } = useSelectedProfile()
  const [filters, setFilters] = useState<ExecutionFilters>(initialFilters)
  const query = useExecutionsInfiniteQuery(profileId, filters)
  const rows = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data])
  const total = query.data?.pages[0]?.total_count
  const markets = useMemo(() => {
    const all = new Set<string>(SEED_MARKETS)
    for (const r of rows) all.add(r.market)
    if (filters.market) all.add(filters.market)
    return [...all]
  }, [rows, filters.market])

  // Rows still settling are refreshed until they settle.
  const settling = rows.some((r) => r.status === "CREATED")
  const { refetch } = query
  useEffect(() => {
    if (!settling) return
    const timer = setInterval(() => void refetch(), 2000)
    return () => clearInterval(timer)
  }, [settling, refetch])

  const apply = (next: ExecutionFilters) => {
    setFilters(next)
    router.replace(`/executions${toQuery(next)}`, { scroll: false })
  }

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Executions</h1>
      {profilesError ? <ProblemAlert error={profilesError} /> : null}
      <div className="max-w-sm">
        <ProfilePicker profiles={profiles} profileId={profileId} onChange={setProfileId} />
      </div>
      <Card title="Filters">
        <Filters key={JSON.stringify(filters)} applied={filters} markets={markets} onApply={apply} />
      </Card>
      <Card
        title={
          <span>
            History{" "}
            {total !== undefined ? (
              <span className="text-sm font-normal text-slate-600" data-testid="executions-count">
                ({rows.length} of {total}
                {noFilters(filters) ? "" : " matching"})
              </span>
            ) : null}
          </span>
        }
        actions={
          canExport && profileId ? (
            <ExportCsvLink href={executionExportUrl(profileId, filters)} />
          ) : null
        }
      >
        {query.error ? <ProblemAlert error={query.error} className="mb-3" /> : null}
        {query.isPending && profileId ? <p className="text-sm text-slate-600">Loading executions…</p> : null}
        {query.data && rows.length === 0 ? <p className="text-sm text-slate-600">No executions match.</p> : null}
        {rows.length > 0 ? (
          <Table caption="Quote executions, newest first" testId="executions-table">
            <TableHead>
              <Th>Created (UTC)</Th>
              <Th>Side</Th>
              <Th>Market</Th>
              <Th align="right">Price</Th>
              <Th align="right">Base amount</Th>
              <Th align="right">Quote amount</Th>
              <Th>Status</Th>
              <Th>Id</Th>
            </TableHead>
            <TableBody>
              {rows.map((r) => (
                <ExecutionRow key={r.id} execution={r} />
              ))}
            </TableBody>
          </Table>
        ) : null}
        {query.hasNextPage ? (
          <div className="mt-4">
            <Button variant="secondary" onClick={() => void query.fetchNextPage()} busy={query.isFetchingNextPage} data-testid="load-more">
              Load more
            </Button>
          </div>
        ) : null}
      </Card>
    </div>
  )
}
