"use client"

import { fieldMessage } from "@/components/forms/field-message"
import { ProfileOptions } from "@/components/profile/profile-picker"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { FilterActions, ListState, useAddressBarFilters } from "@/components/ui/list-parts"
import { IdChip } from "@/components/ui/id-chip"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { formatCount } from "@/lib/format"
import { useProfilesQuery } from "@/lib/queries/profiles"
import { transferExportUrl, useTransfersInfiniteQuery } from "@/lib/queries/transfers"
import { transferPath } from "@/lib/record-paths"
import { TRANSFER_STATUS_VALUES, TRANSFER_TYPES, transferTypeLabel } from "@/lib/schemas/transfer-constants"
import {
  EMPTY_TRANSFER_FILTERS,
  type TransferFilterValues,
  toTransferFilters,
  transferFilterResolver,
  transferFiltersToSearch,
} from "./filters"
import { directionLabel } from "./format"

const DATE_FIELDS = [
  { name: "created_from", label: "Created from (UTC)" },
  { name: "created_to", label: "Created to (UTC)" },
] as const

/**
 * Every movement of the profiles' funds the service knows (deposits, withdrawals, the
 * legs of internal transfers), newest first, with its filters, cursor paging and a CSV
 * export of everything the filters select. Applied filters live in the address bar.
 */
export function TransfersTable({ initialFilters }: { initialFilters: TransferFilterValues }) {
  const profiles = useProfilesQuery()
  const { applied, form, onApply, clear } = useAddressBarFilters({
    path: "/transfers",
    initial: initialFilters,
    empty: EMPTY_TRANSFER_FILTERS,
    resolver: transferFilterResolver,
    toSearch: transferFiltersToSearch,
  })
  const { register, formState } = form
  const filters = toTransferFilters(applied)
  const list = useTransfersInfiniteQuery(filters)
  const rows = list.data?.pages.flatMap((page) => page.items) ?? []
  const nickname = (id: string | undefined) => profiles.data?.find((p) => p.id === id)?.nickname


  return (
    <div className="space-y-4">
      <form aria-label="Filter transfers" noValidate onSubmit={(event) => void onApply(event)} className="space-y-3">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
          <Field label="Profile">
            {(a11y) => (
              <Select {...a11y} {...register("profile_id")}>
                <option value="">All profiles</option>
                <ProfileOptions profiles={profiles.data ?? []} />
              </Select>
            )}
          </Field>
          <Field label="Type">
            {(a11y) => (
              <Select {...a11y} {...register("type")}>
                <option value="">All types</option>
                {TRANSFER_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {transferTypeLabel(type)}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Status">
            {(a11y) => (
              <Select {...a11y} {...register("status")}>
                <option value="">All statuses</option>
                {TRANSFER_STATUS_VALUES.map((status) => (
                  <option key={status} value={status}>
                    {status}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          {DATE_FIELDS.map((f) => (
            <Field key={f.name} label={f.label} error={fieldMessage(f.label.replace(" (UTC)", ""), formState.errors[f.name]?.message)}>
              {(a11y) => <Input {...a11y} type="date" {...register(f.name)} />}
            </Field>
          ))}
        </div>
        <FilterActions onClear={clear} exportHref={transferExportUrl(filters)} />
      </form>

      {list.error ? <ProblemAlert error={list.error} /> : null}

      <Table
        framed
        caption="Transfers, newest first"
        after={<ListState pending={list.isPending} empty={rows.length === 0 && !list.error} noun="transfers" />}
      >
        <TableHead>
          <Th>Created (UTC)</Th>
          <Th>Type</Th>
          <Th>Direction</Th>
          <Th>Status</Th>
          <Th align="right">Amount</Th>
          <Th align="right">Fee</Th>
          <Th align="right">Total</Th>
          <Th>Profile</Th>
          <Th>ref_id</Th>
          <Th>Transfer</Th>
        </TableHead>
        <TableBody>
          {rows.map((t) => (
            <Tr key={t.id} data-testid="transfer-row" data-id={t.id}>
              <Td>
                <Timestamp value={t.created_at} />
              </Td>
              <Td className="whitespace-nowrap">{transferTypeLabel(t.type)}</Td>
              <Td className="whitespace-nowrap">{directionLabel(t.direction)}</Td>
              <Td>
                <StatusBadge status={t.status} />
              </Td>
              <Td align="right" data-testid="row-amount">
                <Amount value={t.amount} asset={t.asset} />
              </Td>
              <Td align="right">
                <Amount value={t.fee} asset={t.asset} unit="" />
              </Td>
              <Td align="right">
                <Amount value={t.total} asset={t.asset} unit="" />
              </Td>
              <Td className="whitespace-nowrap">{nickname(t.profile_id) ?? <IdChip value={t.profile_id} label="profile id" />}</Td>
              <Td>
                <IdChip value={t.ref_id} label="ref_id" />
              </Td>
              <Td>
                <IdChip value={t.id} label="transfer id" href={transferPath(t.id)} linkLabel={`open transfer ${t.id}`} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>

      <div className="flex items-center gap-3 text-sm text-slate-700">
        <span role="status" data-testid="row-count">
          {list.isPending ? "" : `Showing ${formatCount(rows.length)} transfer${rows.length === 1 ? "" : "s"}${list.hasNextPage ? "; more are available" : ""}.`}
        </span>
        {list.hasNextPage ? (
          <Button variant="secondary" busy={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            Load more
          </Button>
        ) : null}
      </div>
    </div>
  )
}
