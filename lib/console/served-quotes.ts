import "server-only"
import { and, eq, gt, lt } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { type ConsoleServedQuote, consoleServedQuotes } from "@/lib/db/schema"
import { errorKind, log } from "@/lib/log"
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
/** The lease-holding quotes poller purges forgotten rows at most this often (per instance). */
const PURGE_EVERY_MS = 60_000
/** Quotes waiting for the next write, at most (more are not remembered, and an order on them is refused). */
const MAX_QUEUED = 5000

type Row = typeof consoleServedQuotes.$inferInsert

/**
 * Per database, this process's memory: what it has written already (key → until when it
 * need not be again, ms), what waits for the next write, the write each waiting or
 * in-flight key rides on, and the write under way. One write at a time per instance:
 * quotes served while one is under way all go in the next (coalesced).
 */
interface Memory {
  written: Map<string, number>
  queued: Map<string, Row>
  pending: Map<string, Promise<void>>
  writing: Promise<void> | null
  next: Promise<void> | null
  /** When `written` was last swept of what it need not keep, and when this instance last purged the table. */
  sweptAt: number
  purgedAt: number
}
// On globalThis: the build gives route handlers their own copies of a module, and the
// quotes route's pending writes must be what the execution route waits for.
const memories = ((globalThis as unknown as { __consoleServedQuotes?: WeakMap<Db, Memory> }).__consoleServedQuotes ??= new WeakMap<Db, Memory>())

function memoryOf(db: Db): Memory {
  let m = memories.get(db)
  if (!m) memories.set(db, (m = { written: new Map(), queued: new Map(), pending: new Map(), writing: null, next: null, sweptAt: 0, purgedAt: 0 }))
  return m
}

const keyOf = (email: string, quoteId: string) => `${email.toLowerCase()}|${quoteId.toLowerCase()}`

/**
 * Remembers that `quotes` were served to `staff`: only new ones are queued (a poll of the
 * same quotes writes nothing), and written by the instance's one writer, off the request
 * that served them. Resolves once they are written or given up (it never rejects): a
 * failure is logged and leaves them unremembered, so an order on them is refused
 * (quote_not_current) rather than admitted without proof. `GET /api/quotes` does not wait
 * for it (`rememberInBackground`): a hung database must not hold a trader's quotes.
 */
export function rememberServed(db: Db, staff: Staff, quotes: readonly Quote[], now: Date = new Date()): Promise<void> {
  const m = memoryOf(db)
  const t = now.getTime()
  const email = staff.email.toLowerCase()
  if (t - m.sweptAt >= PURGE_EVERY_MS) {
    m.sweptAt = t
    for (const [key, until] of m.written) if (until <= t) m.written.delete(key)
  }
  const waits: Promise<void>[] = []
  let dropped = 0
  for (const q of quotes) {
    const key = keyOf(email, q.id)
    const pending = m.pending.get(key)
    if (pending) {
      waits.push(pending)
      continue
    }
    if ((m.written.get(key) ?? 0) > t) continue
    if (m.queued.size >= MAX_QUEUED) {
      dropped++
      continue
    }
    m.queued.set(key, {
      staffEmail: email,
      quoteId: q.id.toLowerCase(),
      market: q.market,
      side: q.side,
      price: q.price,
      expiresAt: new Date(q.expires_at),
      servedAt: now,
      // Past the quote's expiry (a quote served already expired, from a stale snapshot: past its serving).
      rememberUntil: new Date(Math.max(Date.parse(q.expires_at), t) + REMEMBER_PAST_EXPIRY_MS),
    })
    const flush = flushSoon(db, m)
    m.pending.set(key, flush)
    waits.push(flush)
  }
  if (dropped > 0) log.warn("quotes.served_not_remembered", { staff: staffRef(email), quotes: dropped, error: "too many waiting to be written" })
  return Promise.all(waits).then(() => undefined)
}

/** `rememberServed` for the request that served the quotes: it goes on without waiting. */
export function rememberInBackground(db: Db, staff: Staff, quotes: readonly Quote[], now: Date = new Date()): void {
  void rememberServed(db, staff, quotes, now)
}

/** Resolves once every quote this instance has queued by now is written or given up (tests; a shutdown). */
export function rememberingSettled(db: Db): Promise<void> {
  const m = memoryOf(db)
  return Promise.all([m.writing, m.next]).then(() => undefined)
}

/** The next write: after the one under way, with everything queued by then. */
function flushSoon(db: Db, m: Memory): Promise<void> {
  m.next ??= (m.writing ?? Promise.resolve()).then(async () => {
    m.next = null
    const batch = [...m.queued.entries()]
    m.queued.clear()
    const writing = write(db, m, batch)
    m.writing = writing
    await writing
    if (m.writing === writing) m.writing = null
  })
  return m.next
}

/** One insert of the batch, bounded as a whole (lib/db/bounded.ts); never rejects. */
async function write(db: Db, m: Memory, batch: [string, Row][]): Promise<void> {
  if (batch.length === 0) return
  try {
    const rows = batch.map(([, row]) => row)
    await boundedTransaction(db, (tx) => tx.insert(consoleServedQuotes).values(rows).onConflictDoNothing())
    // Written while it is served (until it expires): polls of the same quotes write nothing.
    const t = Date.now()
    for (const [key, row] of batch) m.written.set(key, Math.max(row.expiresAt.getTime(), (row.servedAt ?? new Date(t)).getTime()))
  } catch (error) {
    const staff = new Set(batch.map(([, row]) => staffRef(row.staffEmail)))
    log.warn("quotes.served_not_remembered", { staff: [...staff].slice(0, 5).join(","), quotes: batch.length, error: errorKind(error) })
  } finally {
    for (const [key] of batch) m.pending.delete(key)
  }
}

/**
 * Deletes the rows past their remembering, at most once a minute per instance. Run by the
 * instance holding the quotes poller's lease (lib/console/quote-feed.ts), never by a
 * request; a failure is logged and the next minute tries again.
 */
export async function purgeServedQuotes(db: Db, now: Date = new Date()): Promise<void> {
  const m = memoryOf(db)
  const t = now.getTime()
  if (t - m.purgedAt < PURGE_EVERY_MS) return
  m.purgedAt = t
  await boundedTransaction(db, (tx) => tx.delete(consoleServedQuotes).where(lt(consoleServedQuotes.rememberUntil, now))).catch((error: unknown) =>
    log.warn("quotes.served_purge_failed", { error: errorKind(error) }),
  )
}

/** The quote the console served to this staff member under this id, while it is remembered; null otherwise. */
export async function servedQuote(db: Db, email: string, quoteId: string, now: Date = new Date()): Promise<ConsoleServedQuote | null> {
  // Served a moment ago by this instance and still being written: its write decides.
  await memoryOf(db).pending.get(keyOf(email, quoteId))
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
