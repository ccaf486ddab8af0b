import "server-only"
import { and, eq, lte, sql } from "drizzle-orm"
import { failWaitingIntents } from "@/lib/console/intents"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { consoleApprovals } from "@/lib/db/schema"
import { requestExpired } from "@/lib/problem"

/**
 * Ends every PENDING request whose time is up as EXPIRED; its intent fails, nothing was
 * sent. Run before every read and every decision, so no one sees or acts on a request
 * whose time is up.
 */
export async function expireDue(db: Db, now: Date): Promise<number> {
  return boundedTransaction(db, async (tx) => {
    const expired = await tx
      .update(consoleApprovals)
      .set({ state: "EXPIRED", decidedAt: sql`${consoleApprovals.expiresAt}` })
      .where(and(eq(consoleApprovals.state, "PENDING"), lte(consoleApprovals.expiresAt, now)))
      .returning({ id: consoleApprovals.intentId })
    if (expired.length === 0) return 0
    await failWaitingIntents(
      tx,
      expired.map((e) => e.id),
      requestExpired(),
      now,
    )
    return expired.length
  })
}
