import type { AuditEntry } from "@/lib/queries/audit"
import { conversionPath, executionPath } from "@/lib/record-paths"

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)

export const OPERATION_LABELS: Record<string, string> = {
  create_execution: "Execute quote",
  create_conversion: "Create conversion",
  cancel_conversion: "Cancel conversion",
  update_policy: "Change approval policy",
  replay_event: "Replay a service event",
  take_snapshot: "Take a balance snapshot",
  update_notifications: "Change team notifications",
}

/** One amount of a request, with its asset when the request names it. */
export interface RequestAmount {
  field: "base_amount" | "quote_amount" | "amount"
  value: string
  /** The asset, when the request says it (conversions); executions name only a quote. */
  asset?: string | undefined
  /** What the amount is, in words, when the asset is not known. */
  label: string
}

/**
 * What the request said about money: an execution's base or quote amount (its assets
 * come from the quote, which the request names only by id), a conversion's amount with
 * its source and target.
 */
export function requestAmounts(entry: Pick<AuditEntry, "operation" | "request">): RequestAmount[] {
  const r = entry.request
  const amounts: RequestAmount[] = []
  const base = text(r.base_amount)
  const quote = text(r.quote_amount)
  const amount = text(r.amount)
  if (base) amounts.push({ field: "base_amount", value: base, label: "base (crypto)" })
  if (quote) amounts.push({ field: "quote_amount", value: quote, label: "quote (fiat)" })
  if (amount) {
    const source = text(r.source_asset)
    const target = text(r.target_asset)
    amounts.push({ field: "amount", value: amount, asset: source, label: target ? `to ${target}` : "amount" })
  }
  return amounts
}

/** The console page of the record an intent made or touched, when it has one. */
export function recordHref(entry: Pick<AuditEntry, "operation" | "record_id" | "profile_id" | "request">): string | null {
  if (!entry.record_id) return null
  if (entry.operation === "create_execution") {
    const profileId = entry.profile_id ?? text(entry.request.profile_id)
    return profileId ? executionPath(profileId, entry.record_id) : null
  }
  if (entry.operation === "create_conversion" || entry.operation === "cancel_conversion") return conversionPath(entry.record_id)
  return null
}

/**
 * "2026-03-01" (a date input's value, a UTC day like every other time in the console) →
 * the first or last instant of that day, RFC 3339 UTC.
 */
export function dayBoundary(day: string, end: "start" | "end"): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined
  const instant = new Date(`${day}T${end === "start" ? "00:00:00.000" : "23:59:59.999"}Z`)
  return Number.isNaN(instant.getTime()) || instant.toISOString().slice(0, 10) !== day ? undefined : instant.toISOString()
}

/** The intents' operations and states (lib/db/schema/console.ts), without pulling the database schema into the browser. */
export const INTENT_OPERATION_VALUES = ["create_execution", "create_conversion", "cancel_conversion", "update_policy", "replay_event", "take_snapshot", "update_notifications"] as const
export const INTENT_STATE_VALUES = ["PENDING", "SUCCEEDED", "FAILED", "UNKNOWN", "AWAITING_APPROVAL", "REFUSED"] as const
