import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createOverviewSource } from "@/lib/console/overview"
import type { UpstreamClient } from "@/lib/upstream"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"

// The overview's shared reads of the service (the embedded sandbox), counted on the way out.
describe("the overview's reads of the service after a deposit", () => {
  let h: ConsoleHarness
  let profileId: string
  let calls = 0
  let clock = 1_000_000
  let upstream: Pick<UpstreamClient, "listProfiles" | "listBalances" | "listQuoteExecutions" | "listConversions">

  beforeAll(async () => {
    h = await createConsoleHarness()
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    const counted =
      <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        calls++
        return f(...args)
      }
    upstream = {
      listProfiles: counted((...a: Parameters<UpstreamClient["listProfiles"]>) => h.upstream.listProfiles(...a)),
      listBalances: counted((...a: Parameters<UpstreamClient["listBalances"]>) => h.upstream.listBalances(...a)),
      listQuoteExecutions: counted((...a: Parameters<UpstreamClient["listQuoteExecutions"]>) => h.upstream.listQuoteExecutions(...a)),
      listConversions: counted((...a: Parameters<UpstreamClient["listConversions"]>) => h.upstream.listConversions(...a)),
    }
  })
  afterAll(async () => {
    await h?.close()
  })

  const usdOf = (book: Awaited<ReturnType<ReturnType<typeof createOverviewSource>["book"]>>["book"]) =>
    book.profiles.find((p) => p.profile.id === profileId)?.balances.find((b) => b.asset === "USD")?.available

  it("while someone watches, a deposit's refresh asks the service at once, and the next read has the new balance", async () => {
    const source = createOverviewSource({ upstream, ttlMs: 60_000, watchedMs: 10_000, now: () => clock })
    calls = 0
    const before = usdOf((await source.book()).book)
    const round = calls
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "25.00" })
    clock += 3_000
    calls = 0
    source.refresh()
    // Asked at the refresh, before any reader asks.
    expect(calls).toBeGreaterThan(0)
    const after = usdOf((await source.book()).book)
    // The read joined the refresh's round: one round in all, with the deposit in it.
    expect(calls).toBe(round)
    expect(after).toBeDefined()
    expect(after).not.toBe(before)
  })

  it("with nobody watching (no read within watchedMs), a refresh asks nothing until someone reads", async () => {
    const source = createOverviewSource({ upstream, ttlMs: 60_000, watchedMs: 10_000, now: () => clock })
    await source.book()
    clock += 11_000
    calls = 0
    source.refresh()
    expect(calls).toBe(0)
    await source.book()
    expect(calls).toBeGreaterThan(0)
  })
})
