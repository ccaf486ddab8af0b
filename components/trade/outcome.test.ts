import { describe, expect, it } from "vitest"
import { formFieldOf, needsFreshQuote } from "@/components/trade/outcome"
import { ApiProblemError } from "@/lib/queries/api"
import { PROBLEM_TYPE_BASE } from "@/lib/schemas/problem"

// As the console answers them: the service's problems passed through carry a code.
const named = (slug: string, status: number, code: string, meta: Record<string, unknown> = {}) =>
  new ApiProblemError({ type: `${PROBLEM_TYPE_BASE}${slug}`, title: slug, status, code, meta: { ...meta, service: true } })
const plain = (status: number, code: string, detail?: string) => new ApiProblemError({ type: "about:blank", title: "x", status, code, detail })

describe("needsFreshQuote", () => {
  it("is for expired, rejected and vanished quotes", () => {
    expect(needsFreshQuote(named("expired", 403, "expired"))).toBe(true)
    expect(needsFreshQuote(named("rejected", 403, "rejected"))).toBe(true)
    expect(needsFreshQuote(plain(404, "quote_not_found", "quote not found with id x"))).toBe(true)
    expect(needsFreshQuote(named("insufficient-funds", 403, "insufficient_funds"))).toBe(false)
    expect(needsFreshQuote(plain(404, "service_rejected", "profile not found with id x"))).toBe(false)
  })

  it("goes by the code, never by the words", () => {
    expect(needsFreshQuote(plain(404, "quote_not_found"))).toBe(true)
    expect(needsFreshQuote(plain(404, "not_found", "The console's API has no POST /api/profiles/p/quote-executions."))).toBe(false)
    expect(needsFreshQuote(new ApiProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "quote not found with id x" }))).toBe(false)
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
