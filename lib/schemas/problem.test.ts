import { describe, expect, it } from "vitest"
import { NAMED_PROBLEMS, PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, problemSchema, problemSlug } from "@/lib/schemas/problem"

describe("problemSchema", () => {
  it("defaults the type to about:blank and keeps meta", () => {
    expect(problemSchema.parse({ title: "Not Found", status: 404, detail: "quote not found with id q" })).toEqual({
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: "quote not found with id q",
    })
    const insufficient = {
      type: `${PROBLEM_TYPE_BASE}insufficient-funds`,
      title: "Insufficient Funds",
      status: 403,
      meta: { profile_id: "p", asset: "USD", available: "10.00", needed: "100.00" },
    }
    expect(problemSchema.parse(insufficient)).toEqual(insufficient)
  })

  it("needs a title and an integer status", () => {
    expect(problemSchema.safeParse({ status: 400 }).success).toBe(false)
    expect(problemSchema.safeParse({ title: "Bad Request", status: "400" }).success).toBe(false)
    expect(problemSchema.safeParse({ title: "Bad Request", status: 400.5 }).success).toBe(false)
  })
})

describe("problemSlug", () => {
  it("names the service's problems", () => {
    expect(PROBLEM_CONTENT_TYPE).toBe("application/problem+json")
    expect(PROBLEM_TYPE_BASE).toBe("https://developer.paxos.com/docs/v2/problems/")
    expect(NAMED_PROBLEMS).toEqual({
      expired: "Expired",
      "insufficient-funds": "Insufficient Funds",
      rejected: "Rejected",
      "already-exists": "Already Exists",
    })
    for (const slug of Object.keys(NAMED_PROBLEMS)) {
      expect(problemSlug({ type: `${PROBLEM_TYPE_BASE}${slug}` })).toBe(slug)
    }
    expect(problemSlug({ type: "about:blank" })).toBeNull()
    expect(problemSlug({ type: "https://example.com/problems/expired" })).toBeNull()
  })
})
