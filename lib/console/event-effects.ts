import "server-only"
import { and, desc, eq, sql } from "drizzle-orm"
import type { EventHandler, EventTx, StoredEvent } from "@/lib/console/event-types"
import { recordOrchestrationFinalStatus } from "@/lib/console/intents"
import { notifyDepositCompleted, notifyOrchestrationFailed } from "@/lib/console/notify/events"
import { consoleEvents } from "@/lib/db/schema"
import { TERMINAL_STATUSES } from "@/lib/schemas/constants"
import type { Db } from "@/lib/db/client"

/**
 * What the console does with each event of the service (see lib/console/event-reader.ts):
 *
 * - `orchestration.*` (object: id, ref_id, status): a final status (COMPLETED, FAILED,
 *   REJECTED) of an orchestration placed through the console is stored on its intent
 *   (record_final_status, written by lib/console/intents.ts): the person who placed it is
 *   notified (lib/console/notifications.ts reads it), and nobody asks the service for it
 *   again. Written only when none is stored: a replay notifies nobody twice.
 * - `transfer.<kind>.completed` of a credit (crypto, wire or other deposit, internal credit):
 *   the event row is marked a feed entry (effects.feed), which the overview's live feed and
 *   "Latest activity" read (one row per event id: a replay adds nothing), and the overview's
 *   balances are read again, and the admins are notified (lib/console/notify/events.ts). The credit leg of an orchestration refreshes balances only: the
 *   feed shows the conversion itself.
 *
 * Everything is read from the event's object: the Events API is the service's own answer.
 */

/** Final statuses of an orchestration: the console's terminal ones, and REJECTED at the service. */
const FINAL = TERMINAL_STATUSES

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)

/** A transfer event that credits a profile: a deposit of any kind, or an internal credit. */
export function isCompletedCredit(event: Pick<StoredEvent, "type" | "object">): boolean {
  if (!event.type.startsWith("transfer.") || !event.type.endsWith(".completed")) return false
  const direction = text(event.object.direction)
  if (direction) return direction === "CREDIT"
  const kind = event.type.slice("transfer.".length, -".completed".length)
  return kind.endsWith("_deposit") || kind.endsWith("_credit")
}

async function applyOrchestration(tx: EventTx, event: StoredEvent, at: Date): Promise<Record<string, unknown>> {
  const orchestrationId = text(event.object.id)
  const status = text(event.object.status) ?? event.type.slice("orchestration.".length).toUpperCase()
  const effects: Record<string, unknown> = { orchestration: orchestrationId, status }
  if (!orchestrationId || !(FINAL as readonly string[]).includes(status)) return effects
  const notified = await recordOrchestrationFinalStatus(tx, orchestrationId, status, at)
  if (notified) effects.notified = notified
  if (notified && (status === "FAILED" || status === "REJECTED")) await notifyOrchestrationFailed(tx, notified, orchestrationId, status, at)
  return effects
}

async function applyTransfer(tx: EventTx, event: StoredEvent, at: Date): Promise<Record<string, unknown>> {
  if (!isCompletedCredit(event)) return { transfer: text(event.object.id) }
  // An orchestration's own credit leg moved balances, but the feed shows the conversion itself.
  if (text(event.object.orchestration_id)) return { transfer: text(event.object.id), balances: true }
  await notifyDepositCompleted(tx, event, at)
  return { transfer: text(event.object.id), feed: true, balances: true }
}

/** The handler the console's reader runs; `refreshBalances` after a credit is committed. */
export function consoleEventHandler(options: { refreshBalances?: () => void } = {}): EventHandler {
  return {
    async apply(tx, event, _prepared, at) {
      if (event.type.startsWith("orchestration.")) return applyOrchestration(tx, event, at)
      if (event.type.startsWith("transfer.")) return applyTransfer(tx, event, at)
      return {}
    },
    afterCommit(_event, effects) {
      if (effects.balances === true) options.refreshBalances?.()
    },
  }
}

export interface CreditEntry {
  eventId: string
  transferId: string
  type: string
  profileId: string
  asset: string
  amount: string
  createdAt: Date
}

/** The newest credits the reader processed (the overview's feed and latest activity): one per event. */
export async function latestCredits(db: Db, limit: number): Promise<CreditEntry[]> {
  const rows = await db
    .select({ id: consoleEvents.id, object: consoleEvents.object, createdAt: consoleEvents.createdAt })
    .from(consoleEvents)
    .where(and(eq(consoleEvents.status, "processed"), sql`${consoleEvents.effects} ->> 'feed' = 'true'`))
    .orderBy(desc(consoleEvents.createdAt), desc(consoleEvents.id))
    .limit(limit)
  return rows.flatMap((row) => {
    const o = row.object ?? {}
    const transferId = text(o.id)
    const profileId = text(o.profile_id)
    const asset = text(o.asset)
    const amount = text(o.amount)
    if (!transferId || !profileId || !asset || !amount) return []
    return [{ eventId: row.id, transferId, type: text(o.type) ?? "TRANSFER", profileId, asset, amount, createdAt: row.createdAt }]
  })
}
