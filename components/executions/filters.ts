import type { ExecutionFilters } from "@/lib/queries/executions"
import { EXECUTION_SIDES, EXECUTION_STATUSES, RFC3339 } from "@/lib/schemas/constants"
import { utcInputToRfc3339 } from "@/components/executions/format"

export const FILTER_NAMES = ["market", "side", "status", "created_at.begin", "created_at.end"] as const

const MARKET = /^[A-Z0-9]{4,16}$/

/**
 * Filters from a URL's query (the service's own names), keeping only values the service
 * would take: a bookmark with a stray value shows everything rather than an error.
 */
export function filtersFromQuery(query: Record<string, string | string[] | undefined>): ExecutionFilters {
  const one = (name: string) => {
    const value = query[name]
    return typeof value === "string" ? value : Array.isArray(value) ? value[0] : undefined
  }
  const filters: ExecutionFilters = {}
  const market = one("market")
  if (market && MARKET.test(market)) filters.market = market
  const side = one("side")
  if (side && (EXECUTION_SIDES as readonly string[]).includes(side)) filters.side = side
  const status = one("status")
  if (status && (EXECUTION_STATUSES as readonly string[]).includes(status)) filters.status = status
  const begin = one("created_at.begin")
  if (begin && RFC3339.test(begin)) filters["created_at.begin"] = begin
  const end = one("created_at.end")
  if (end && RFC3339.test(end)) filters["created_at.end"] = end
  return filters
}

export interface FilterForm {
  market: string
  side: string
  status: string
  from: string
  to: string
}

/** The filter form's values (datetime-local inputs, read as UTC) as the service's filters, or what is wrong. */
export function filtersFromForm(form: FilterForm): { ok: true; filters: ExecutionFilters } | { ok: false; errors: Partial<Record<keyof FilterForm, string>> } {
  const errors: Partial<Record<keyof FilterForm, string>> = {}
  const filters: ExecutionFilters = {}
  if (form.market) {
    if (MARKET.test(form.market)) filters.market = form.market
    else errors.market = "Market must be like BTCUSD."
  }
  if (form.side) filters.side = form.side
  if (form.status) filters.status = form.status
  if (form.from) {
    const begin = utcInputToRfc3339(form.from, "begin")
    if (begin) filters["created_at.begin"] = begin
    else errors.from = "Created from must be a date and time."
  }
  if (form.to) {
    const end = utcInputToRfc3339(form.to, "end")
    if (end) filters["created_at.end"] = end
    else errors.to = "Created to must be a date and time."
  }
  const begin = filters["created_at.begin"]
  const end = filters["created_at.end"]
  if (begin && end && Date.parse(begin) > Date.parse(end)) errors.to = "Created to must not be before created from."
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, filters }
}

/** True when no filter is set. */
export function noFilters(filters: ExecutionFilters): boolean {
  return FILTER_NAMES.every((name) => !filters[name])
}
