import { describe, expect, it } from "vitest"
import { PENDING_MAX_AGE_MS } from "@/lib/queries/pending-submission"
import { BROKEN_STORE, MemoryStore } from "@/test/memory-store"
import { EMPTY_FORM } from "./form-model"
import { PENDING_CONVERSION_KEY, type PendingConversion, pendingConversions } from "./pending-conversion"


const REF = "5b0c7a52-8f8e-4c55-9a55-0c8f2f7e1d11"
const PROFILE = "4f1d2c3b-aaaa-4bbb-8ccc-111111111111"
const NOW = Date.parse("2026-01-31T12:00:10Z")

function pending(overrides: Partial<PendingConversion> = {}): PendingConversion {
  return {
    version: 1,
    refId: REF,
    body: { profile_id: PROFILE, amount: "125.50", source_asset: "USD", target_asset: "USDP", ref_id: REF, metadata: { desk: "a" } },
    values: { ...EMPTY_FORM, profile_id: PROFILE, amount: "125.50", metadata: [{ key: "desk", value: "a" }] },
    sent: true,
    savedAt: new Date(NOW).toISOString(),
    ...overrides,
  }
}

describe("pending conversion", () => {
  it("round-trips the same body, ref_id and form values, and is gone once cleared", () => {
    const store = new MemoryStore()
    pendingConversions.save(store, pending())
    expect(pendingConversions.load(store, NOW)).toEqual(pending())
    pendingConversions.clear(store)
    expect(pendingConversions.load(store, NOW)).toBeNull()
  })

  it("keeps itself apart from the trade desk's kept submission", () => {
    const store = new MemoryStore()
    pendingConversions.save(store, pending())
    expect([...store.map.keys()]).toEqual([PENDING_CONVERSION_KEY])
  })

  it("drops what is unreadable, inconsistent or too old, so nothing wrong is ever offered again", () => {
    const store = new MemoryStore()
    store.setItem(PENDING_CONVERSION_KEY, "{not json")
    expect(pendingConversions.load(store, NOW)).toBeNull()
    expect(store.getItem(PENDING_CONVERSION_KEY)).toBeNull()

    // A body under another ref_id than the submission's.
    pendingConversions.save(store, pending({ refId: "6c1d8b63-9f9f-4d66-8b66-1d9f3f8f2e22" }))
    expect(pendingConversions.load(store, NOW)).toBeNull()
    expect(store.getItem(PENDING_CONVERSION_KEY)).toBeNull()

    // A body the create schema refuses (three decimals).
    pendingConversions.save(store, pending({ body: { ...pending().body, amount: "1.005" } }))
    expect(pendingConversions.load(store, NOW)).toBeNull()

    // A body for another profile than the form's.
    pendingConversions.save(store, pending({ values: { ...pending().values, profile_id: "another" } }))
    expect(pendingConversions.load(store, NOW)).toBeNull()

    pendingConversions.save(store, pending())
    expect(pendingConversions.load(store, NOW + PENDING_MAX_AGE_MS + 1)).toBeNull()
  })

  it("survives a storage that throws", () => {
    const broken = BROKEN_STORE
    expect(() => pendingConversions.save(broken, pending())).not.toThrow()
    expect(pendingConversions.load(broken, NOW)).toBeNull()
    expect(() => pendingConversions.clear(broken)).not.toThrow()
  })
})
