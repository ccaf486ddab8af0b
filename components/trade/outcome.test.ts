import { describe, expect, it } from "vitest"
import { formFieldOf, needsFreshQuote } from "@/components/trade/outcome"
import { ApiProblemError } from "@/lib/queries/api"
import { PROBLEM_TYPE_BASE } from "@/lib/schemas/problem"

const named = (slug: string, status: number, meta: Record<string, unknown> = {}) =>
  new ApiProblemError({ type: `${PROBLEM_TYPE_BASE}${slug}`, title: slug, status, meta })
const plain = (status: number, detail?: string) => new ApiProblemError({ type: "about:blank", title: "x", status, detail })

describe("needsFreshQuote", () => {
  it("is for expired, rejected and vanished quotes", () => {
    expect(needsFreshQuote(named("expired", 403))).toBe(true)
    expect(needsFreshQuote(named("rejected", 403))).toBe(true)
    expect(needsFreshQuote(plain(404, "quote not found with id x"))).toBe(true)
    expect(needsFreshQuote(named("insufficient-funds", 403))).toBe(false)
    expect(needsFreshQuote(plain(404, "profile not found with id x"))).toBe(false)
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
