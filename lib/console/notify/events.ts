import "server-only"
import { eq } from "drizzle-orm"
import type { EventTx, StoredEvent } from "@/lib/console/event-types"
import { notify, staffAtLeast } from "@/lib/console/notify/outbox"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { formatAmount } from "@/lib/format"
import { conversionPath, transferPath } from "@/lib/record-paths"

/**
 * Notifications from the service's events, written in the event reader's transaction (the
 * one that records the event): a replay writes none again (one per kind and subject).
 */

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)

/** An orchestration placed through the console ended FAILED or REJECTED: its maker and the admins hear of it. */
export async function notifyOrchestrationFailed(tx: EventTx, intentId: string, orchestrationId: string, status: string, at: Date): Promise<void> {
  const db = tx as Db
  const [intent] = await db.select({ staffEmail: consoleIntents.staffEmail, refId: consoleIntents.refId }).from(consoleIntents).where(eq(consoleIntents.id, intentId))
  await notify(db, {
    kind: "orchestration_failed",
    subject: orchestrationId,
    title: `Conversion ${status.toLowerCase()} at the service`,
    detail: `The conversion ${orchestrationId} (ref_id ${intent?.refId ?? "unknown"}) placed by ${intent?.staffEmail ?? "the console"} ended ${status} at the service.`,
    href: conversionPath(orchestrationId),
    recipients: [...(intent ? [intent.staffEmail] : []), ...(await staffAtLeast(db, "admin"))],
    at,
  })
}

/** A deposit (a credit that is not a conversion's own leg) completed: the admins hear of it. */
export async function notifyDepositCompleted(tx: EventTx, event: StoredEvent, at: Date): Promise<void> {
  const db = tx as Db
  const id = text(event.object.id)
  if (!id) return
  const amount = text(event.object.amount)
  const asset = text(event.object.asset) ?? text(event.object.currency) ?? ""
  await notify(db, {
    kind: "deposit_completed",
    subject: id,
    title: "Deposit completed",
    detail: `A deposit${amount ? ` of ${formatAmount(amount, asset || null)} ${asset}` : ""} completed (transfer ${id}).`,
    href: transferPath(id),
    recipients: await staffAtLeast(db, "admin"),
    at,
  })
}
