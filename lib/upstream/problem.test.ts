import { describe, expect, it } from "vitest"
import { PROBLEM_TYPE_BASE, problemSchema } from "@/lib/schemas/problem"
import type { QuoteExecution } from "@/lib/schemas/records"
import {
  RateLimitedError,
  UpstreamConfigError,
  UpstreamConflictError,
  type UpstreamError,
  UpstreamProblemError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream/errors"
import { upstreamErrorToProblem } from "@/lib/upstream/problem"
import { CLIENT_SECRET } from "@/test/fake-upstream"

const existing: QuoteExecution = {
  id: "f190b163-208f-4d73-8deb-4fb8b24add00",
  profile_id: "b7b77d82-e6a7-4ae9-9904-36231aedf985",
  quote_id: "366a26d2-3098-4226-a520-4bb43ae4d922",
  ref_id: "already_used_ref_id",
  status: "CREATED",
  market: "BTCUSD",
  side: "BUY",
  price: "6001.2",
  base_amount: "0.016663334",
  base_asset: "BTC",
  quote_amount: "100.00",
  quote_asset: "USD",
  created_at: "2020-01-17T18:36:31.345Z",
}

const named = (status: number, slug: string, title: string, detail: string, meta: Record<string, unknown>) =>
  new UpstreamProblemError({ type: `${PROBLEM_TYPE_BASE}${slug}`, title, status, detail, meta }, { operation: "createQuoteExecution", mutating: true })

const expiredMeta = { expired_at: "2020-01-17T18:36:38Z" }
const fundsMeta = { profile_id: existing.profile_id, asset: "USD", available: "50", needed: "100" }

interface Row {
  name: string
  error: UpstreamError
  status: number
  title: string
  code: string
  type?: string
  detail?: string | RegExp
  meta?: Record<string, unknown>
  headers?: Record<string, string>
}

const table: Row[] = [
  {
    name: "Expired passes through with meta",
    error: named(403, "expired", "Expired", "quote expired at 2020-01-17T18:36:38Z", expiredMeta),
    status: 403,
    title: "Expired",
    code: "expired",
    type: `${PROBLEM_TYPE_BASE}expired`,
    detail: "quote expired at 2020-01-17T18:36:38Z",
    meta: { ...expiredMeta, service: true },
  },
  {
    name: "Insufficient Funds passes through with meta",
    error: named(403, "insufficient-funds", "Insufficient Funds", "insufficient USD funds", fundsMeta),
    status: 403,
    title: "Insufficient Funds",
    code: "insufficient_funds",
    type: `${PROBLEM_TYPE_BASE}insufficient-funds`,
    meta: { ...fundsMeta, service: true },
  },
  {
    name: "Rejected passes through",
    error: named(403, "rejected", "Rejected", "extreme market conditions have invalidated this quote execution", {}),
    status: 403,
    title: "Rejected",
    code: "rejected",
    meta: { service: true },
  },
  {
    name: "a conflicting Already Exists passes through with the existing record",
    error: new UpstreamConflictError(
      { type: `${PROBLEM_TYPE_BASE}already-exists`, title: "Already Exists", status: 409, detail: "quote execution already exists", meta: { existing } },
      { kind: "quote_execution", record: existing },
    ),
    status: 409,
    title: "Already Exists",
    code: "already_exists",
    type: `${PROBLEM_TYPE_BASE}already-exists`,
    meta: { existing, service: true },
  },
  {
    name: "400 passes through with its fields",
    error: new UpstreamProblemError({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "11000 amount is above the maximum 10000 USD",
      meta: { fields: { amount: "above the maximum" } },
    }),
    status: 400,
    title: "Bad Request",
    code: "service_rejected",
    type: "about:blank",
    detail: "11000 amount is above the maximum 10000 USD",
    meta: { fields: { amount: "above the maximum" }, service: true },
  },
  {
    name: "404 passes through",
    error: new UpstreamProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "conversion with id x not found" }),
    status: 404,
    title: "Not Found",
    code: "service_rejected",
    detail: "conversion with id x not found",
    meta: { service: true },
  },
  {
    name: "404 to an execution's create: the quote is not there",
    error: new UpstreamProblemError(
      { type: "about:blank", title: "Not Found", status: 404, detail: "quote not found with id q" },
      { operation: "createQuoteExecution", mutating: true },
    ),
    status: 404,
    title: "Not Found",
    code: "quote_not_found",
    detail: "quote not found with id q",
    meta: { service: true },
  },
  {
    name: "409 of a cancel passes through",
    error: new UpstreamProblemError({ type: "about:blank", title: "Conflict", status: 409, detail: "conversion is SETTLED", meta: { status: "SETTLED" } }),
    status: 409,
    title: "Conflict",
    code: "service_rejected",
    meta: { status: "SETTLED", service: true },
  },
  {
    name: "a 4xx after an attempt whose outcome is unknown → 502, never 'Expired'",
    error: Object.assign(named(403, "expired", "Expired", "quote expired", expiredMeta), { outcome: "unknown" as const }),
    status: 502,
    title: "Bad Gateway",
    code: "upstream_unavailable",
    detail: /may have been applied/,
  },
  {
    name: "outage → 502 with a plain detail",
    error: new UpstreamUnavailableError("the service answered 503 Service Unavailable", { outcome: "unknown", status: 503 }),
    status: 502,
    title: "Bad Gateway",
    code: "upstream_unavailable",
    detail: "The trading service is unavailable right now. Try again shortly.",
  },
  {
    name: "outage on a create → 502 saying it may have been applied",
    error: new UpstreamUnavailableError("dropped", { outcome: "unknown", mutating: true }),
    status: 502,
    title: "Bad Gateway",
    code: "upstream_unavailable",
    detail: /Try again shortly\. The request may have been applied/,
  },
  {
    name: "timeout → 504",
    error: new UpstreamTimeoutError(10_000, { outcome: "unknown" }),
    status: 504,
    title: "Gateway Timeout",
    code: "upstream_timeout",
    detail: "The trading service did not answer in time.",
  },
  {
    name: "local rate limit → 429 with Retry-After",
    error: new RateLimitedError(3),
    status: 429,
    title: "Too Many Requests",
    code: "rate_limited",
    detail: /Try again in 3 s/,
    headers: { "retry-after": "3" },
  },
  {
    name: "the service's own 429 (after retries) → 429 with its Retry-After",
    error: new UpstreamProblemError({ type: "about:blank", title: "Too Many Requests", status: 429 }, { retryAfterSeconds: 7 }),
    status: 429,
    title: "Too Many Requests",
    code: "rate_limited",
    headers: { "retry-after": "7" },
  },
  {
    name: "configuration error → 502 with a plain detail (no scope names, no secret)",
    error: new UpstreamConfigError(`the service refused the console's client credentials (invalid_client) ${CLIENT_SECRET}`),
    status: 502,
    title: "Bad Gateway",
    code: "upstream_misconfigured",
    detail: "The console's connection to the trading service is misconfigured.",
  },
  {
    name: "unreadable answer → 502",
    error: new UpstreamResponseError("unexpected answer to listQuotes: items.0.price: must be a decimal string", { outcome: "unknown", status: 200 }),
    status: 502,
    title: "Bad Gateway",
    code: "upstream_unavailable",
    detail: "The trading service sent an answer the console could not read.",
  },
  {
    name: "a 401/403 that is not a named problem → 502 (the console's problem, not the operator's)",
    error: new UpstreamProblemError({ type: "about:blank", title: "Forbidden", status: 403, detail: "account disabled" }),
    status: 502,
    title: "Bad Gateway",
    code: "upstream_misconfigured",
  },
]

describe("upstreamErrorToProblem", () => {
  it.each(table)("$name", (row) => {
    const { problem, headers } = upstreamErrorToProblem(row.error)
    expect(problemSchema.parse(problem)).toEqual(problem)
    expect(problem.status).toBe(row.status)
    expect(problem.title).toBe(row.title)
    expect(problem.code).toBe(row.code)
    if (row.type !== undefined) expect(problem.type).toBe(row.type)
    if (typeof row.detail === "string") expect(problem.detail).toBe(row.detail)
    if (row.detail instanceof RegExp) expect(problem.detail).toMatch(row.detail)
    if (row.meta !== undefined) expect(problem.meta).toEqual(row.meta)
    expect(headers).toEqual(row.headers ?? {})

    const said = JSON.stringify(problem)
    expect(said).not.toContain(CLIENT_SECRET)
    expect(said).not.toMatch(/\bat .*\.ts:\d+/)
    expect(said).not.toContain("Error:")
  })

  it("every error class is an Error with an outcome", () => {
    for (const row of table) {
      expect(row.error).toBeInstanceOf(Error)
      expect(["rejected", "unknown"]).toContain(row.error.outcome)
    }
  })
})
