import "server-only"
import { approversOf, notify, resolveNotification } from "@/lib/console/notify/outbox"
import type { Db } from "@/lib/db/client"
import { formatAmount } from "@/lib/format"
import { FIAT_DECIMALS, toDecimal } from "@/lib/money"

/**
 * The approval notifications, each written in the transaction that changes the request:
 * opened (to everyone whose role the request's tier allows to approve it), ended (the waiting items resolved for all of
 * them, and the maker told unless they withdrew it themselves).
 */

interface RequestFacts {
  intentId: string
  kind: string
  makerEmail: string
  market: string | null
  side: string | null
  sizeAmount: string
  sizeCurrency: string
}

/** The deep link: the request on the approvals page. */
export function requestHref(intentId: string): string {
  return `/approvals#request-${intentId}`
}

/** "buy BTC-USD" or "conversion": what a request is, without its amount (titles are email subjects). */
function what(r: RequestFacts): string {
  return r.kind === "execution" ? `${(r.side ?? "").toLowerCase()} ${r.market ?? ""}`.trim() : "conversion"
}

function size(r: RequestFacts): string {
  return `${formatAmount(toDecimal(r.sizeAmount).toFixed(FIAT_DECIMALS), r.sizeCurrency)} ${r.sizeCurrency}`
}

export async function notifyRequestOpened(tx: Db, r: RequestFacts & { expiresAt: Date; approverRoles?: readonly string[] | null }, at: Date): Promise<void> {
  await notify(tx, {
    kind: "approval_waiting",
    subject: r.intentId,
    title: `Approval waiting: ${what(r)} request`,
    detail: `${r.makerEmail} asks for a second person to approve a ${what(r)} request of ${size(r)}. It expires at ${r.expiresAt.toISOString().slice(11, 16)} UTC.`,
    href: requestHref(r.intentId),
    recipients: await approversOf(tx, r.makerEmail, r.approverRoles),
    at,
  })
}

const ENDED: Record<string, { word: string; title: string }> = {
  APPROVED: { word: "approved", title: "Your request was approved" },
  PRICE_MOVED: { word: "approved (price moved)", title: "Your request was approved; the price moved" },
  REJECTED: { word: "rejected", title: "Your request was rejected" },
  EXPIRED: { word: "expired", title: "Your request expired" },
  VOIDED: { word: "voided", title: "Your request was voided" },
  WITHDRAWN: { word: "withdrawn", title: "" },
}

/** A request left PENDING: the checkers' items resolve ("approved by …"), and the maker hears how it ended. */
export async function notifyRequestEnded(tx: Db, r: RequestFacts & { state: string; by: string | null; reason?: string | null }, at: Date): Promise<void> {
  const ended = ENDED[r.state] ?? { word: r.state.toLowerCase(), title: `Your request is ${r.state}` }
  await resolveNotification(tx, { kind: "approval_waiting", subject: r.intentId, by: r.by ?? "the console", what: ended.word, at })
  if (r.state === "WITHDRAWN") return
  const by = r.by ? ` by ${r.by}` : ""
  const why = r.reason ? `: ${r.reason}` : ""
  await notify(tx, {
    kind: "approval_decided",
    subject: r.intentId,
    title: `${ended.title} (${what(r)})`,
    detail: `Your ${what(r)} request of ${size(r)} was ${ended.word}${by}${why}.`,
    href: requestHref(r.intentId),
    recipients: [r.makerEmail],
    at,
  })
}
