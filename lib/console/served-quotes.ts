import "server-only"
import { and, eq, gt, lt } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import type { Db } from "@/lib/db/client"
import { type ConsoleServedQuote, consoleServedQuotes } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { toDecimal } from "@/lib/money"
import { quoteNotCurrent, quoteNotServed } from "@/lib/problem"
import type { ReviewedQuote } from "@/lib/schemas/quote-execution"
import type { Quote } from "@/lib/schemas/records"

/**
 * The console's memory of the quotes it served, per staff member, in the database (every
 * instance remembers what any of them served). An execution names a quote the console
 * served to its maker, at the price it served, or it is refused: the maker never chooses
 * the limit price of a request. Kept a short while past each quote's expiry, for an order
 * reviewed on a quote that then expired; purged after that.
 */

/** How long past its expiry a served quote is still remembered. */
export const REMEMBER_PAST_EXPIRY_MS = 5 * 60_000
const PURGE_EVERY_MS = 60_000

/** Per database: what this process has written already (staff|quote id → until when it need not be again, ms), and the last purge. */
interface Written {
  rows: Map<string, number>
  purgedAt: number
}
const written = new WeakMap<Db, Written>()

function writtenFor(db: Db): Written {
  let w = written.get(db)
  if (!w) written.set(db, (w = { rows: new Map(), purgedAt: 0 }))
  return w
}

const keyOf = (email: string, quoteId: string) => `${email.toLowerCase()}|${quoteId.toLowerCase()}`

/**
 * Remembers that `quotes` were served to `staff`. Only new ones are written (a poll of the
 * same quotes writes nothing); a failure is logged and leaves them unremembered, so an
 * order on them is refused (quote_not_current) rather than admitted without proof.
 */
export async function rememberServed(db: Db, staff: Staff, quotes: readonly Quote[], now: Date = new Date()): Promise<void> {
  const w = writtenFor(db)
  const t = now.getTime()
  const fresh = quotes.filter((q) => !((w.rows.get(keyOf(staff.email, q.id)) ?? 0) > t))
  if (t - w.purgedAt >= PURGE_EVERY_MS) {
    w.purgedAt = t
    for (const [key, until] of w.rows) if (until <= t) w.rows.delete(key)
    await db
      .delete(consoleServedQuotes)
      .where(lt(consoleServedQuotes.rememberUntil, now))
      .catch((error: unknown) => log.warn("quotes.served_purge_failed", { error: error instanceof Error ? error.message : String(error) }))
  }
  if (fresh.length === 0) return
  const email = staff.email.toLowerCase()
  const rows = fresh.map((q) => ({
    staffEmail: email,
    quoteId: q.id.toLowerCase(),
    market: q.market,
    side: q.side,
    price: q.price,
    expiresAt: new Date(q.expires_at),
    servedAt: now,
    // Past the quote's expiry (a quote served already expired, from a stale snapshot: past its serving).
    rememberUntil: new Date(Math.max(Date.parse(q.expires_at), t) + REMEMBER_PAST_EXPIRY_MS),
  }))
  try {
    await db.insert(consoleServedQuotes).values(rows).onConflictDoNothing()
    // Written while it is served (until it expires): polls of the same quotes write nothing.
    for (const row of rows) w.rows.set(keyOf(email, row.quoteId), Math.max(row.expiresAt.getTime(), t))
  } catch (error) {
    log.warn("quotes.served_not_remembered", { staff: email, quotes: rows.length, error: error instanceof Error ? error.message : String(error) })
  }
}

/** The quote the console served to this staff member under this id, while it is remembered; null otherwise. */
export async function servedQuote(db: Db, email: string, quoteId: string, now: Date = new Date()): Promise<ConsoleServedQuote | null> {
  const [row] = await db
    .select()
    .from(consoleServedQuotes)
    .where(
      and(
        eq(consoleServedQuotes.staffEmail, email.toLowerCase()),
        eq(consoleServedQuotes.quoteId, quoteId.toLowerCase()),
        gt(consoleServedQuotes.rememberUntil, now),
      ),
    )
    .limit(1)
  return row ?? null
}

/**
 * The proof an execution's quote needs: served to this maker, and, when the create says
 * what was reviewed, at exactly that market, side and price. Answers the served quote.
 */
export async function provenQuote(db: Db, staff: Staff, quoteId: string, reviewed: ReviewedQuote | undefined, now: Date): Promise<ConsoleServedQuote> {
  const served = await servedQuote(db, staff.email, quoteId, now)
  if (!served) throw quoteNotServed(quoteId)
  if (reviewed && (reviewed.market !== served.market || reviewed.side !== served.side || !toDecimal(reviewed.price).eq(toDecimal(served.price)))) {
    throw quoteNotCurrent(`reviewed_quote: the console served quote ${quoteId} as ${served.side} ${served.market} at ${served.price}, not as reviewed; take a fresh quote.`, {
      reviewed_quote: "differs from the quote the console served",
    })
  }
  return served
}
