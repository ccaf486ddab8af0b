import type { Resolver } from "react-hook-form"
import type { ConversionFilters } from "@/lib/queries/conversions"

/** The table's filters as the form and the address bar hold them: a profile and UTC days. */
export interface FilterValues {
  profile_id: string
  created_from: string
  created_to: string
  updated_from: string
  updated_to: string
}

export const EMPTY_FILTERS: FilterValues = { profile_id: "", created_from: "", created_to: "", updated_from: "", updated_to: "" }
const KEYS = Object.keys(EMPTY_FILTERS) as (keyof FilterValues)[]

const DAY = /^\d{4}-\d{2}-\d{2}$/
function isDay(value: string): boolean {
  if (!DAY.test(value)) return false
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value)
}
export type FilterErrors = Partial<Record<keyof FilterValues, string>>

/**
 * What is wrong with the filters, by field: impossible days, and a range that ends before
 * it starts (said under its end). Plain code, so the page loads no schema library.
 */
export function filterErrors(values: FilterValues): FilterErrors {
  const errors: FilterErrors = {}
  for (const key of ["created_from", "created_to", "updated_from", "updated_to"] as const) {
    if (values[key] !== "" && !isDay(values[key])) errors[key] = "must be a date like 2026-01-31"
  }
  for (const [from, to, what] of [
    ["created_from", "created_to", "Created from"],
    ["updated_from", "updated_to", "Updated from"],
  ] as const) {
    if (!errors[from] && !errors[to] && values[from] && values[to] && values[to] < values[from]) {
      errors[to] = `must be on or after “${what}”`
    }
  }
  return errors
}

/** filterErrors as a react-hook-form resolver. */
export const filterResolver: Resolver<FilterValues> = (values) => {
  const found = Object.entries(filterErrors(values)) as [keyof FilterValues, string][]
  if (found.length === 0) return { values, errors: {} }
  return { values: {}, errors: Object.fromEntries(found.map(([key, message]) => [key, { type: "validate", message }])) }
}

/** The service's filters: each day from 00:00:00 to 23:59:59.999 UTC, both ends inclusive. */
export function toConversionFilters(values: FilterValues): ConversionFilters {
  const begin = (value: string) => (isDay(value) ? `${value}T00:00:00Z` : undefined)
  const end = (value: string) => (isDay(value) ? `${value}T23:59:59.999Z` : undefined)
  const filters: ConversionFilters = {}
  if (values.profile_id.trim()) filters.profile_id = values.profile_id.trim()
  const entries: [keyof ConversionFilters, string | undefined][] = [
    ["created_at.begin", begin(values.created_from)],
    ["created_at.end", end(values.created_to)],
    ["updated_at.begin", begin(values.updated_from)],
    ["updated_at.end", end(values.updated_to)],
  ]
  for (const [key, value] of entries) if (value) filters[key] = value
  return filters
}

/** Filters from the address bar (?profile_id=…&created_from=…); anything unreadable is left out. */
export function filtersFromSearch(params: Record<string, string | string[] | undefined>): FilterValues {
  const values = { ...EMPTY_FILTERS }
  for (const key of KEYS) {
    const raw = params[key]
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? ""
    if (key === "profile_id" ? /^[A-Za-z0-9._:-]{0,128}$/.test(value) : value === "" || isDay(value)) values[key] = value
  }
  return values
}

export function filtersToSearch(values: FilterValues): string {
  const search = new URLSearchParams()
  for (const key of KEYS) if (values[key]) search.set(key, values[key])
  const text = search.toString()
  return text ? `?${text}` : ""
}
