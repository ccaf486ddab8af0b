import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, beforeEach, vi } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { createSession } from "@/lib/auth/sessions"
import { savePolicy } from "@/lib/console/policy"
import { rememberServed } from "@/lib/console/served-quotes"
import { submitQuoteExecution } from "@/lib/console/submission"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { HttpProblem } from "@/lib/problem"
import { DEFAULT_POLICY, type Policy } from "@/lib/schemas/approvals"
import type { Quote } from "@/lib/schemas/records"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
import type { TestDriver } from "@/test/db"

/** What the submission and approval tests share: who acts, the policy, a harness with a maker per test. */

export const maker: Staff = { email: "trader@example.com", role: "trader" }
export const checker: Staff = { email: "admin@example.com", role: "admin" }
export const otherTrader: Staff = { email: "trader2@example.com", role: "trader" }
export const support: Staff = { email: "support@example.com", role: "support" }

export function problemOf(error: unknown): { status: number; code?: string | undefined; detail?: string | undefined; meta?: Record<string, unknown> | undefined } {
  if (!(error instanceof HttpProblem)) throw new Error(`expected an HttpProblem, got ${String(error)}`)
  return error.problem
}

/** A staff member who signs in through single sign-on with this role (the console knows them from that sign-in). */
export async function signsInBySso(db: Db, who: Staff): Promise<void> {
  await createSession(db, { email: who.email, role: who.role, provider: "oidc", subject: `sub-${who.email}`, userAgent: null, address: null })
}

/** Small numbers, so that tests stay far from the sandbox's own limits. */
export const TEST_POLICY: Policy = {
  ...DEFAULT_POLICY,
  approval_thresholds: { execution: { USD: "100.00", EUR: "90.00", SGD: "130.00" }, conversion: { USD: "100.00" } },
  role_limits: {
    trader: { per_order: { USD: "1000.00" }, per_day: { USD: "2500.00" } },
    admin: { per_order: { USD: "1000.00" }, per_day: { USD: "2500.00" } },
  },
}

/**
 * How many `method` statements `run` sends (or tries to) to each of `tables`, on the
 * database and in any transaction it opens: `{ intents: consoleIntents }` counts the
 * intents table's under the name `intents`.
 */
export async function statementsIn<T, K extends string>(
  db: Db,
  method: "insert" | "update",
  tables: Record<K, object>,
  run: () => Promise<T>,
): Promise<{ result: T; counts: Record<K, number> }> {
  const names = Object.keys(tables) as K[]
  const counts = Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>
  const count = (target: Pick<Db, "insert" | "update">) => {
    const send = (target[method] as (table: object) => unknown).bind(target)
    return vi.spyOn(target as Pick<Db, "insert">, method as "insert").mockImplementation(((table: object) => {
      for (const name of names) if (tables[name] === table) counts[name]++
      return send(table)
    }) as Db["insert"])
  }
  const outside = count(db)
  const transaction = db.transaction.bind(db)
  const inside = vi.spyOn(db, "transaction").mockImplementation((work, config) =>
    transaction((tx) => {
      count(tx)
      return work(tx)
    }, config),
  )
  try {
    return { result: await run(), counts }
  } finally {
    outside.mockRestore()
    inside.mockRestore()
  }
}

/** How many rows `run` inserts (or tries to) into console_intents, in a transaction or not. */
export async function intentInserts<T>(db: Db, run: () => Promise<T>): Promise<{ result: T; inserts: number }> {
  const { result, counts } = await statementsIn(db, "insert", { intents: consoleIntents }, run)
  return { result, inserts: counts.intents }
}

/**
 * The console against the sandbox with TEST_POLICY saved, for one describe block: call it
 * there (it adds the hooks). Each test gets its own maker, `me` (and so its own usage today).
 */
export class ApprovalsFixture {
  h!: ConsoleHarness
  profileId!: string
  me!: Staff

  constructor(driver: TestDriver) {
    beforeAll(async () => {
      this.h = await createConsoleHarness({ driver })
      this.profileId = (await this.h.upstream.listProfiles()).items[0]!.id
      await savePolicy(this.h.db, checker, TEST_POLICY)
      // Outside the sandbox's demo directory: known to the console from their single sign-on.
      await signsInBySso(this.h.db, otherTrader)
    })
    beforeEach(async () => {
      this.me = { email: `maker-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
      await signsInBySso(this.h.db, this.me)
    })
    afterAll(async () => {
      await this.h?.close()
    })
  }

  /** The quotes `heldQuote` served, as the console's quote cache keeps them until they expire. */
  private readonly served = new Map<string, Quote>()

  /**
   * The held quotes as the app's `heldQuotesOf` gives them: the sandbox's current ones, and
   * the asked-for quote the console served earlier while it has not expired (a new quote
   * comes every second: on a busy machine the test's quote is often no longer the newest).
   */
  heldQuotes = async (quoteId?: string): Promise<Quote[]> => {
    const current = await this.h.upstream.listQuotes([])
    const earlier = quoteId ? this.served.get(quoteId.toLowerCase()) : undefined
    const live = earlier && new Date(earlier.expires_at).getTime() > Date.now()
    return live && !current.some((q) => q.id === earlier.id) ? [earlier, ...current] : current
  }

  /** A held quote, served to `to` (the test's maker by default) as GET /api/quotes serves it. */
  heldQuote = async (side: "BUY" | "SELL" = "BUY", market = "BTCUSD", to?: Staff, at?: Date): Promise<Quote> => {
    const quote = (await this.h.upstream.listQuotes([market])).find((q) => q.side === side)
    if (!quote) throw new Error(`no ${side} quote for ${market}`)
    await rememberServed(this.h.db, to ?? this.me, [quote], at)
    this.served.set(quote.id.toLowerCase(), quote)
    return quote
  }

  executionsWithRef = async (refId: string) => {
    const page = await this.h.upstream.listQuoteExecutions(this.profileId, { limit: 1000 })
    return page.items.filter((e) => e.ref_id === refId)
  }

  /** An execution of `quoteAmount` USD at the held BTCUSD buy quote, as the trade desk sends it. */
  ask = async (quoteAmount: string, who?: Staff, extra: { now?: () => Date } = {}) => {
    const quote = await this.heldQuote("BUY", "BTCUSD", who ?? this.me, extra.now?.())
    const refId = randomUUID()
    const submission = await submitQuoteExecution(
      this.h,
      who ?? this.me,
      this.profileId,
      {
        quote_id: quote.id,
        quote_amount: quoteAmount,
        ref_id: refId,
        metadata: { desk: "fx" },
        reviewed_quote: { market: quote.market, side: quote.side, price: quote.price },
      },
      { heldQuotes: this.heldQuotes, ...extra },
    )
    return { submission, refId, quote }
  }
}
