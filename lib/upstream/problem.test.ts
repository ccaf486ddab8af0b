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
    type: `${PROBLEM_TYPE_BASE}expired`,
    detail: "quote expired at 2020-01-17T18:36:38Z",
    meta: expiredMeta,
  },
  {
    name: "Insufficient Funds passes through with meta",
    error: named(403, "insufficient-funds", "Insufficient Funds", "insufficient USD funds", fundsMeta),
    status: 403,
    title: "Insufficient Funds",
    type: `${PROBLEM_TYPE_BASE}insufficient-funds`,
    meta: fundsMeta,
  },
  {
    name: "Rejected passes through",
    error: named(403, "rejected", "Rejected", "extreme market conditions have invalidated this quote execution", {}),
    status: 403,
    title: "Rejected",
    meta: {},
  },
  {
    name: "a conflicting Already Exists passes through with the existing record",
    error: new UpstreamConflictError(
      { type: `${PROBLEM_TYPE_BASE}already-exists`, title: "Already Exists", status: 409, detail: "quote execution already exists", meta: { existing } },
      { kind: "quote_execution", record: existing },
    ),
    status: 409,
    title: "Already Exists",
    type: `${PROBLEM_TYPE_BASE}already-exists`,
    meta: { existing },
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
    type: "about:blank",
    detail: "11000 amount is above the maximum 10000 USD",
    meta: { fields: { amount: "above the maximum" } },
  },
  {
    name: "404 passes through",
    error: new UpstreamProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "conversion with id x not found" }),
    status: 404,
    title: "Not Found",
    detail: "conversion with id x not found",
  },
  {
    name: "409 of a cancel passes through",
    error: new UpstreamProblemError({ type: "about:blank", title: "Conflict", status: 409, detail: "conversion is SETTLED", meta: { status: "SETTLED" } }),
    status: 409,
    title: "Conflict",
    meta: { status: "SETTLED" },
  },
  {
    name: "a 4xx after an attempt whose outcome is unknown → 502, never 'Expired'",
    error: Object.assign(named(403, "expired", "Expired", "quote expired", expiredMeta), { outcome: "unknown" as const }),
    status: 502,
    title: "Bad Gateway",
    detail: /may have been applied/,
  },
  {
    name: "outage → 502 with a plain detail",
    error: new UpstreamUnavailableError("the service answered 503 Service Unavailable", { outcome: "unknown", status: 503 }),
    status: 502,
    title: "Bad Gateway",
    detail: "The trading service is unavailable right now. Try again shortly.",
  },
  {
    name: "outage on a create → 502 saying it may have been applied",
    error: new UpstreamUnavailableError("dropped", { outcome: "unknown", mutating: true }),
    status: 502,
    title: "Bad Gateway",
    detail: /Try again shortly\. The request may have been applied/,
  },
  {
    name: "timeout → 504",
    error: new UpstreamTimeoutError(10_000, { outcome: "unknown" }),
    status: 504,
    title: "Gateway Timeout",
    detail: "The trading service did not answer in time.",
  },
  {
    name: "local rate limit → 429 with Retry-After",
    error: new RateLimitedError(3),
    status: 429,
    title: "Too Many Requests",
    detail: /Try again in 3 s/,
    headers: { "retry-after": "3" },
  },
  {
    name: "the service's own 429 (after retries) → 429 with its Retry-After",
    error: new UpstreamProblemError({ type: "about:blank", title: "Too Many Requests", status: 429 }, { retryAfterSeconds: 7 }),
    status: 429,
    title: "Too Many Requests",
    headers: { "retry-after": "7" },
  },
  {
    name: "configuration error → 502 with a plain detail (no scope names, no secret)",
    error: new UpstreamConfigError(`the service refused the console's client credentials (invalid_client) ${CLIENT_SECRET}`),
    status: 502,
    title: "Bad Gateway",
    detail: "The console's connection to the trading service is misconfigured.",
  },
  {
    name: "unreadable answer → 502",
    error: new UpstreamResponseError("unexpected answer to listQuotes: items.0.price: must be a decimal string", { outcome: "unknown", status: 200 }),
    status: 502,
    title: "Bad Gateway",
    detail: "The trading service sent an answer the console could not read.",
  },
  {
    name: "a 401/403 that is not a named problem → 502 (the console's problem, not the operator's)",
    error: new UpstreamProblemError({ type: "about:blank", title: "Forbidden", status: 403, detail: "account disabled" }),
    status: 502,
    title: "Bad Gateway",
  },
]

describe("upstreamErrorToProblem", () => {
  it.each(table)("$name", (row) => {
    const { problem, headers } = upstreamErrorToProblem(row.error)
    expect(problemSchema.parse(problem)).toEqual(problem)
    expect(problem.status).toBe(row.status)
    expect(problem.title).toBe(row.title)
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
