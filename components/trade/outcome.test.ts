import { describe, expect, it } from "vitest"
import { existingExecution, formFieldOf, needsFreshQuote, outcomeOf } from "@/components/trade/outcome"
import { ApiNetworkError, ApiProblemError } from "@/lib/queries/api"
import { PROBLEM_TYPE_BASE } from "@/lib/schemas/problem"

const named = (slug: string, status: number, meta: Record<string, unknown> = {}) =>
  new ApiProblemError({ type: `${PROBLEM_TYPE_BASE}${slug}`, title: slug, status, meta })
const plain = (status: number, detail?: string) => new ApiProblemError({ type: "about:blank", title: "x", status, detail })

const existing = {
  id: "0e0e0e0e-3333-4c4c-9d9d-444444444444",
  profile_id: "profile-1",
  quote_id: "9d2b0b7e-1111-4a4a-8b8b-222222222222",
  ref_id: "ref-1",
  status: "CREATED",
  market: "BTCUSD",
  side: "BUY",
  price: "97123.45",
  base_amount: "0.01000000",
  base_asset: "BTC",
  quote_amount: "971.24",
  quote_asset: "USD",
  created_at: "2026-01-31T12:00:00Z",
}

describe("outcomeOf", () => {
  it("keeps the submission open when the answer never came or the service failed", () => {
    expect(outcomeOf(new ApiNetworkError(new TypeError("fetch failed")))).toBe("unknown")
    expect(outcomeOf(plain(502))).toBe("unknown")
    expect(outcomeOf(plain(504))).toBe("unknown")
    expect(outcomeOf(plain(429))).toBe("unknown")
    expect(outcomeOf(new Error("response did not parse"))).toBe("unknown")
  })
  it("ends it on a refusal", () => {
    expect(outcomeOf(named("expired", 403))).toBe("failed")
    expect(outcomeOf(named("insufficient-funds", 403))).toBe("failed")
    expect(outcomeOf(named("rejected", 403))).toBe("failed")
    expect(outcomeOf(plain(400))).toBe("failed")
    expect(outcomeOf(plain(403))).toBe("failed")
    expect(outcomeOf(named("already-exists", 409, { existing }))).toBe("already-exists")
    expect(outcomeOf(plain(409))).toBe("conflict")
  })
})

describe("needsFreshQuote", () => {
  it("is for expired, rejected and vanished quotes", () => {
    expect(needsFreshQuote(named("expired", 403))).toBe(true)
    expect(needsFreshQuote(named("rejected", 403))).toBe(true)
    expect(needsFreshQuote(plain(404, "quote not found with id x"))).toBe(true)
    expect(needsFreshQuote(named("insufficient-funds", 403))).toBe(false)
    expect(needsFreshQuote(plain(404, "profile not found with id x"))).toBe(false)
  })
})

describe("existingExecution", () => {
  it("reads the record a 409 carries", () => {
    expect(existingExecution(named("already-exists", 409, { existing }))?.id).toBe(existing.id)
    expect(existingExecution(named("already-exists", 409, { existing: { id: 1 } }))).toBeNull()
    expect(existingExecution(plain(500))).toBeNull()
  })
})

describe("formFieldOf", () => {
  it("maps the service's fields onto the form's", () => {
    expect(formFieldOf("base_amount")).toBe("amount")
    expect(formFieldOf("quote_amount")).toBe("amount")
    expect(formFieldOf("metadata.desk")).toBe("metadata")
    expect(formFieldOf("account_id")).toBe("account_id")
    expect(formFieldOf("quote_id")).toBeNull()
  })
})
