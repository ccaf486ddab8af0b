import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ConsoleHarness, createConsoleHarness, placeExecution } from "@/test/console"
import { testDrivers } from "@/test/db"
import { spansInMemory } from "@/test/spans"

// The spans an operator's collector receives (docs/production.md, "Traces"), kept in memory here.
const exporter = spansInMemory()

const trader = { email: "trader@example.com", role: "trader" } as const

describe.each(testDrivers())("a create's placement span on %s", (driver) => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
  })
  afterAll(async () => {
    await h?.close()
  })

  it("is console.intent.place with the ref_id, one for identical submissions that share a placement", async () => {
    const profileId = (await h.upstream.listProfiles()).items[0]!.id
    const quote = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")!
    const refId = randomUUID()
    const body = { quote_id: quote.id, quote_amount: "10.00", ref_id: refId }
    await Promise.all([placeExecution(h, trader, profileId, body), placeExecution(h, trader, profileId, body)])
    const places = exporter.getFinishedSpans().filter((span) => span.attributes["console.ref_id"] === refId)
    expect(places.map((span) => span.name)).toEqual(["console.intent.place"])
  })
})
