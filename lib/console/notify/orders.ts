import "server-only"
import { notify, resolveNotification, staffAtLeast } from "@/lib/console/notify/outbox"
import type { Db } from "@/lib/db/client"
import type { ConsoleIntent } from "@/lib/db/schema"
import { formatAmount } from "@/lib/format"
import { atOrOverThreshold } from "@/lib/limits"
import { FIAT_DECIMALS, type Decimal } from "@/lib/money"

/**
 * Notifications about orders placed through the console, each written in the transaction
 * of the change that causes it: an order at or over the team's large-order size (with its
 * intent, at admission), and an order whose outcome the reconciler could not learn (with
 * the reconciler's UNKNOWN), resolved when a later run learns it. One per intent.
 */

/** The intent's page: the deep link of both. */
export function intentHref(intentId: string): string {
  return `/intents/${encodeURIComponent(intentId)}`
}

/** "buy BTCUSD" or "conversion USD → USDP": what an order is, without its amount (titles are email subjects). */
function what(order: { operation: string; market: string | null; side: string | null; request: Record<string, unknown> }): string {
  if (order.operation === "create_execution") return `${(order.side ?? "").toLowerCase()} ${order.market ?? ""}`.trim() || "execution"
  if (order.operation === "cancel_conversion") return "conversion cancel"
  const from = typeof order.request.source_asset === "string" ? order.request.source_asset : null
  const to = typeof order.request.target_asset === "string" ? order.request.target_asset : null
  return from && to ? `conversion ${from} → ${to}` : "conversion"
}

function money(amount: string, currency: string): string {
  return `${formatAmount(amount, currency)} ${currency}`
}

/**
 * An order at or over the large-order size of its currency (`sizes`, the team setting): the
 * admins hear of it, the maker left out. Written with the order's intent, in its transaction.
 */
export async function notifyLargeOrder(
  tx: Db,
  order: {
    intentId: string
    operation: "create_execution" | "create_conversion"
    makerEmail: string
    market: string | null
    side: string | null
    request: Record<string, unknown>
    size: { amount: Decimal; currency: string }
    waits: boolean
  },
  sizes: Record<string, string>,
  at: Date,
): Promise<void> {
  const threshold = sizes[order.size.currency]
  if (!atOrOverThreshold(threshold, order.size)) return
  const maker = order.makerEmail.toLowerCase()
  const recipients = (await staffAtLeast(tx, "admin")).filter((email) => email !== maker)
  if (recipients.length === 0) return
  const amount = order.size.amount.toFixed(FIAT_DECIMALS)
  await notify(tx, {
    kind: "large_order",
    subject: order.intentId,
    title: `Large order: ${what(order)}`,
    detail: `${order.makerEmail} ${order.waits ? "asked for" : "placed"} a ${what(order)} of ${money(amount, order.size.currency)}, at or over the team's large-order size of ${money(threshold ?? "0", order.size.currency)}${order.waits ? "; it waits for approval" : ""}.`,
    href: intentHref(order.intentId),
    recipients,
    at,
  })
}

/**
 * The reconciler tried and still could not learn whether the service applied the intent
 * (it stays UNKNOWN): its maker and the admins hear of it, once. Written in the
 * transaction that leaves it UNKNOWN.
 */
export async function notifyOutcomeUnknown(tx: Db, intent: ConsoleIntent, at: Date): Promise<void> {
  const size = intent.sizeAmount !== null && intent.sizeCurrency !== null ? ` of ${money(intent.sizeAmount, intent.sizeCurrency)}` : ""
  const ref = intent.refId ? ` (ref_id ${intent.refId})` : intent.targetId ? ` (conversion ${intent.targetId})` : ""
  await notify(tx, {
    kind: "outcome_unknown",
    subject: intent.id,
    title: `Outcome unknown: ${what(intent)}`,
    detail: `The console cannot tell whether the service applied the ${what(intent)}${size}${ref} sent by ${intent.staffEmail} at ${intent.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC: the reconciler asked and could not learn it. It keeps asking every minute; check the service before sending it again.`,
    href: intentHref(intent.id),
    recipients: [intent.staffEmail, ...(await staffAtLeast(tx, "admin"))],
    at,
  })
}

/** A later run learned the outcome: the notification is resolved for everyone it went to ("found placed by the reconciler"). */
export async function resolveOutcomeUnknown(tx: Db, intentId: string, state: "SUCCEEDED" | "FAILED", at: Date): Promise<void> {
  await resolveNotification(tx, { kind: "outcome_unknown", subject: intentId, by: "the reconciler", what: state === "SUCCEEDED" ? "found placed" : "found not placed", at })
}
