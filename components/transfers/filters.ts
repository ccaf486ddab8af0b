import type { Resolver } from "react-hook-form"
import type { TransferFilters } from "@/lib/queries/transfers"
import { TRANSFER_STATUS_VALUES, TRANSFER_TYPES } from "@/lib/schemas/transfer-constants"

/** The transfer table's filters as the form and the address bar hold them: profile, type, status, UTC days. */
export interface TransferFilterValues {
  profile_id: string
  type: string
  status: string
  created_from: string
  created_to: string
}

export const EMPTY_TRANSFER_FILTERS: TransferFilterValues = { profile_id: "", type: "", status: "", created_from: "", created_to: "" }
const KEYS = Object.keys(EMPTY_TRANSFER_FILTERS) as (keyof TransferFilterValues)[]

const DAY = /^\d{4}-\d{2}-\d{2}$/
function isDay(value: string): boolean {
  if (!DAY.test(value)) return false
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value)
}
const TYPES: readonly string[] = TRANSFER_TYPES
const STATUSES: readonly string[] = TRANSFER_STATUS_VALUES

export type TransferFilterErrors = Partial<Record<keyof TransferFilterValues, string>>

/** What is wrong with the filters, by field: impossible days, a range that ends before it starts. */
export function transferFilterErrors(values: TransferFilterValues): TransferFilterErrors {
  const errors: TransferFilterErrors = {}
  for (const key of ["created_from", "created_to"] as const) {
    if (values[key] !== "" && !isDay(values[key])) errors[key] = "must be a date like 2026-01-31"
  }
  if (!errors.created_from && !errors.created_to && values.created_from && values.created_to && values.created_to < values.created_from) {
    errors.created_to = "must be on or after “Created from”"
  }
  return errors
}

export const transferFilterResolver: Resolver<TransferFilterValues> = (values) => {
  const found = Object.entries(transferFilterErrors(values)) as [keyof TransferFilterValues, string][]
  if (found.length === 0) return { values, errors: {} }
  return { values: {}, errors: Object.fromEntries(found.map(([key, message]) => [key, { type: "validate", message }])) }
}

/** GET /api/transfers' filters: each day from 00:00:00 to 23:59:59.999 UTC, both ends inclusive. */
export function toTransferFilters(values: TransferFilterValues): TransferFilters {
  const filters: TransferFilters = {}
  if (values.profile_id.trim()) filters.profile_id = values.profile_id.trim()
  if (TYPES.includes(values.type)) filters.type = values.type
  if (STATUSES.includes(values.status)) filters.status = values.status
  if (isDay(values.created_from)) filters["created_at.begin"] = `${values.created_from}T00:00:00Z`
  if (isDay(values.created_to)) filters["created_at.end"] = `${values.created_to}T23:59:59.999Z`
  return filters
}

/** Filters from the address bar (?profile_id=…&type=…); anything unreadable is left out. */
export function transferFiltersFromSearch(params: Record<string, string | string[] | undefined>): TransferFilterValues {
  const values = { ...EMPTY_TRANSFER_FILTERS }
  for (const key of KEYS) {
    const raw = params[key]
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? ""
    const ok =
      key === "profile_id"
        ? /^[A-Za-z0-9._:-]{0,128}$/.test(value)
        : key === "type"
          ? value === "" || TYPES.includes(value)
          : key === "status"
            ? value === "" || STATUSES.includes(value)
            : value === "" || isDay(value)
    if (ok) values[key] = value
  }
  return values
}

export function transferFiltersToSearch(values: TransferFilterValues): string {
  const search = new URLSearchParams()
  for (const key of KEYS) if (values[key]) search.set(key, values[key])
  const text = search.toString()
  return text ? `?${text}` : ""
}
