import { describe, expect, it } from "vitest"
import { EMPTY_FORM } from "@/components/trade/execute-model"
import { PENDING_KEY } from "@/components/trade/pending-key"
import { type PendingSubmission, pendingTrades } from "@/components/trade/pending-submission"
import { PENDING_MAX_AGE_MS } from "@/lib/queries/pending-submission"
import { BROKEN_STORE, MemoryStore } from "@/test/memory-store"


const quote = {
  id: "9d2b0b7e-1111-4a4a-8b8b-222222222222",
  market: "BTCUSD",
  side: "BUY" as const,
  price: "97123.45",
  base_asset: "BTC",
  quote_asset: "USD",
  created_at: "2026-01-31T12:00:00Z",
  expires_at: "2026-01-31T12:00:30Z",
}
const REF = "3d3c7baf-ffd2-4317-a759-e04665217655"
const NOW = Date.parse("2026-01-31T12:00:10Z")

function pending(overrides: Partial<PendingSubmission> = {}): PendingSubmission {
  return {
    version: 1,
    profileId: "profile-1",
    refId: REF,
    body: { quote_id: quote.id, ref_id: REF, base_amount: "0.5", metadata: { desk: "a" } },
    quote,
    values: { ...EMPTY_FORM, amount: "0.5", metadata: [{ key: "desk", value: "a" }] },
    sent: true,
    savedAt: new Date(NOW).toISOString(),
    ...overrides,
  }
}

describe("pending submission", () => {
  it("round-trips the same body and ref_id", () => {
    const store = new MemoryStore()
    pendingTrades.save(store, pending())
    expect(pendingTrades.load(store, NOW)).toEqual(pending())
    pendingTrades.clear(store)
    expect(pendingTrades.load(store, NOW)).toBeNull()
  })

  it("drops what is unreadable, inconsistent or too old", () => {
    const store = new MemoryStore()
    store.setItem(PENDING_KEY, "{not json")
    expect(pendingTrades.load(store, NOW)).toBeNull()
    expect(store.getItem(PENDING_KEY)).toBeNull()

    pendingTrades.save(store, pending({ refId: "another-ref" }))
    expect(pendingTrades.load(store, NOW)).toBeNull()

    pendingTrades.save(store, pending({ body: { quote_id: quote.id, ref_id: REF, base_amount: "0.000000001" } }))
    expect(pendingTrades.load(store, NOW)).toBeNull()

    pendingTrades.save(store, pending())
    expect(pendingTrades.load(store, NOW + PENDING_MAX_AGE_MS + 1)).toBeNull()
  })

  it("survives a storage that throws", () => {
    const broken = BROKEN_STORE
    expect(() => pendingTrades.save(broken, pending())).not.toThrow()
    expect(pendingTrades.load(broken, NOW)).toBeNull()
    expect(() => pendingTrades.clear(broken)).not.toThrow()
  })
})
