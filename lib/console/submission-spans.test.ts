import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { submitConversion, submitQuoteExecution } from "@/lib/console/submission"
import { ApprovalsFixture } from "@/test/approvals"
import { testDrivers } from "@/test/db"
import { spansInMemory } from "@/test/spans"

// The spans an operator's collector receives (docs/production.md, "Traces"), kept in memory here.
const exporter = spansInMemory()

/** [operation, what the admission decided] of each intent-write span of `refId`, in order. */
const intentWrites = (refId: string) =>
  exporter
    .getFinishedSpans()
    .filter((span) => span.name === "console.intent.write" && span.attributes["console.ref_id"] === refId)
    .map((span) => [span.attributes["console.operation"], span.attributes["console.admitted"]])

describe.each(testDrivers())("a submission's intent-write span on %s", (driver) => {
  const f = new ApprovalsFixture(driver)

  it("names the operation, the ref_id and what the admission decided: send, request, or an intent that exists", async () => {
    const small = await f.ask("20.00")
    expect(small.submission.kind).toBe("placed")
    expect(intentWrites(small.refId)).toEqual([["create_execution", "send"]])

    const big = await f.ask("150.00")
    expect(big.submission.kind).toBe("request")
    const q = big.quote
    const retry = { quote_id: q.id, quote_amount: "150.00", ref_id: big.refId, metadata: { desk: "fx" }, reviewed_quote: { market: q.market, side: q.side, price: q.price } }
    expect((await submitQuoteExecution(f.h, f.me, f.profileId, retry, { heldQuotes: () => Promise.resolve([q]) })).kind).toBe("request")
    expect(intentWrites(big.refId)).toEqual([
      ["create_execution", "request"],
      ["create_execution", "exists"],
    ])

    const conversion = { profile_id: f.profileId, amount: "30.00", source_asset: "USD" as const, target_asset: "PYUSD" as const, ref_id: randomUUID() }
    expect((await submitConversion(f.h, f.me, conversion)).kind).toBe("placed")
    expect(intentWrites(conversion.ref_id)).toEqual([["create_conversion", "send"]])
  })
})
