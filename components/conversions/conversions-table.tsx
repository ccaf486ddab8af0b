"use client"

import { CONVERSION_DECIMALS } from "@/lib/format"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Field, Input, Select } from "@/components/ui/field"
import { IdChip } from "@/components/ui/id-chip"
import { FilterActions, ListState, useAddressBarFilters } from "@/components/ui/list-parts"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { conversionExportUrl, useConversionsInfiniteQuery } from "@/lib/queries/conversions"
import { useProfilesQuery } from "@/lib/queries/profiles"
import { conversionPath } from "@/lib/record-paths"
import { type FilterValues, EMPTY_FILTERS, filterResolver, filtersToSearch, toConversionFilters } from "./filters"
import { fieldMessage } from "@/components/forms/field-message"
import { ProfileOptions } from "@/components/profile/profile-picker"

const DATE_FIELDS = [
  { name: "created_from", label: "Created from (UTC)" },
  { name: "created_to", label: "Created to (UTC)" },
  { name: "updated_from", label: "Updated from (UTC)" },
  { name: "updated_to", label: "Updated to (UTC)" },
] as const

/**
 * The conversion list with the service's filters (profile, created and updated days),
 * cursor paging, and a CSV export of everything the filters select. Applied filters live
 * in the address bar, so a filtered view can be shared.
 */
export function ConversionsTable({ initialFilters }: { initialFilters: FilterValues }) {
  const profiles = useProfilesQuery()
  const { applied, form, onApply, clear } = useAddressBarFilters({
    path: "/conversions",
    initial: initialFilters,
    empty: EMPTY_FILTERS,
    resolver: filterResolver,
    toSearch: filtersToSearch,
  })
  const { register, formState } = form
  const filters = toConversionFilters(applied)
  const list = useConversionsInfiniteQuery(filters)
  const rows = list.data?.pages.flatMap((page) => page.items) ?? []
  const nickname = (id: string | undefined) => profiles.data?.find((p) => p.id === id)?.nickname


  return (
    <div className="space-y-4">
      <form aria-label="Filter conversions" noValidate onSubmit={(event) => void onApply(event)} className="space-y-3">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
          <Field label="Profile">
            {(a11y) => (
              <Select {...a11y} {...register("profile_id")}>
                <option value="">All profiles</option>
                <ProfileOptions profiles={profiles.data ?? []} />
              </Select>
            )}
          </Field>
          {DATE_FIELDS.map((f) => (
            <Field key={f.name} label={f.label} error={fieldMessage(f.label.replace(" (UTC)", ""), formState.errors[f.name]?.message)}>
              {(a11y) => <Input {...a11y} type="date" {...register(f.name)} />}
            </Field>
          ))}
        </div>
        <FilterActions onClear={clear} exportHref={conversionExportUrl(filters)} />
      </form>

      {list.error ? <ProblemAlert error={list.error} /> : null}

      <Table
        framed
        caption="Conversions, newest first"
        after={<ListState pending={list.isPending} empty={rows.length === 0 && !list.error} noun="conversions" />}
      >
        <TableHead>
          <Th>Created (UTC)</Th>
          <Th>Status</Th>
          <Th align="right">Amount</Th>
          <Th>Pair</Th>
          <Th>Profile</Th>
          <Th>ref_id</Th>
          <Th>Conversion</Th>
        </TableHead>
        <TableBody>
          {rows.map((c) => (
            <Tr key={c.id} data-testid="conversion-row" data-id={c.id}>
              <Td>
                <Timestamp value={c.created_at} />
              </Td>
              <Td>
                <StatusBadge status={c.status} of="conversion" />
              </Td>
              <Td align="right">
                <Amount value={c.amount} asset={c.source_asset} places={CONVERSION_DECIMALS} unit="" />
              </Td>
              <Td className="whitespace-nowrap">
                {c.source_asset} <span aria-hidden>→</span>
                <span className="sr-only">to</span> {c.target_asset}
              </Td>
              <Td className="whitespace-nowrap">{nickname(c.profile_id) ?? <IdChip value={c.profile_id} label="profile id" />}</Td>
              <Td data-testid="row-ref-id">
                <IdChip value={c.ref_id} label={`ref_id ${c.ref_id?.slice(0, 8) ?? ""}`} />
              </Td>
              <Td>
                <IdChip value={c.id} label={`conversion id ${c.id.slice(0, 8)}`} href={conversionPath(c.id)} linkLabel={`Open conversion ${c.id}`} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>

      <div className="flex items-center gap-3 text-sm text-slate-700">
        <span role="status" data-testid="row-count">
          {list.isPending ? "" : `Showing ${rows.length} conversion${rows.length === 1 ? "" : "s"}${list.hasNextPage ? "; more are available" : ""}.`}
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
