import { randomUUID } from "node:crypto"
import { executionAmounts } from "@/lib/money"
import type { Conversion, Quote, QuoteExecution } from "@/lib/schemas/records"
import type { UpstreamClientConfig } from "@/lib/upstream/client"
import type { UpstreamLogEvent } from "@/lib/upstream/transport"
import { UPSTREAM_SCOPES } from "@/lib/schemas/scopes"
import { FakeClock } from "@/test/clock"

export { FakeClock }

/**
 * A scriptable fake of the service (token endpoint + API) behind a fetch function, for
 * lib/upstream's tests; it runs on test/clock.ts's FakeClock, so nothing here waits on
 * the wall clock.
 */

export const BASE_URL = "https://api.test/v2"
export const TOKEN_URL = "https://auth.test/oauth2/token"
export const CLIENT_ID = "console-client"
export const CLIENT_SECRET = "s3cret-Do-Not-Leak-7f9a"
export const API_SCOPES: readonly string[] = UPSTREAM_SCOPES
export const PROFILE_ID = "b7b77d82-e6a7-4ae9-9904-36231aedf985"
export const QUOTE_ID = "366a26d2-3098-4226-a520-4bb43ae4d922"
export const SELL_QUOTE_ID = "5a336768-5bc1-4401-9d95-9cb251ce4b58"

/** What the fake does with the next API request (after its auth check). */
export type Step =
  | { kind: "pass" }
  | { kind: "respond"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "network" }
  | { kind: "hang" }
  | { kind: "body_error"; status?: number }
  /** Commit then fail: the request is applied, then the answer is lost. */
  | { kind: "commit"; then: "network" | "body" | number }

export type TokenStep =
  | { kind: "grant"; scope?: string | null; expiresIn?: number; tokenType?: string }
  | { kind: "error"; status: number; error?: string; body?: string }
  | { kind: "network" }
  | { kind: "hang" }

export interface RecordedRequest {
  method: string
  path: string
  search: URLSearchParams
  authorization: string | null
  contentType: string | null
  body: unknown
  at: number
}

export interface RecordedTokenRequest {
  form: URLSearchParams
  contentType: string | null
  at: number
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  })
}

function problem(status: number, title: string, detail: string, slug?: string, meta?: Record<string, unknown>): Response {
  const type = slug ? `https://developer.paxos.com/docs/v2/problems/${slug}` : "about:blank"
  return new Response(JSON.stringify({ type, title, status, detail, ...(meta ? { meta } : {}) }), {
    status,
    headers: { "content-type": "application/problem+json" },
  })
}

function brokenBody(status: number): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"id":"'))
      controller.error(new TypeError("terminated: other side closed"))
    },
  })
  return new Response(stream, { status, headers: { "content-type": "application/json" } })
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    const fail = () => reject(new DOMException("This operation was aborted", "AbortError"))
    if (signal.aborted) fail()
    else signal.addEventListener("abort", fail, { once: true })
  })
}

/**
 * A small, stateful fake of the service: OAuth client credentials, quotes, executions
 * (ref_id unique per profile), conversions (ref_id unique per client), cancel,
 * profiles, balances, deposit and the sandbox admin faults. Scripts inject failures.
 */
export class FakeUpstream {
  readonly requests: RecordedRequest[] = []
  readonly tokenRequests: RecordedTokenRequest[] = []
  readonly script: Step[] = []
  readonly tokenScript: TokenStep[] = []
  readonly issuedTokens: string[] = []
  readonly executions = new Map<string, QuoteExecution>()
  readonly conversions = new Map<string, Conversion>()
  tokenTtlS = 3599
  faults: unknown = { seed: 1, settle_delay_ms: 2000, rate_limits: false, rules: [] }
  private readonly liveTokens = new Map<string, { scopes: string[]; expiresAt: number }>()
  readonly quotes = new Map<string, Quote>()

  constructor(private readonly clock: FakeClock) {
    const created = new Date(clock.now()).toISOString()
    const expires = new Date(clock.now() + 30_000).toISOString()
    this.quotes.set(QUOTE_ID, {
      id: QUOTE_ID,
      market: "BTCUSD",
      side: "BUY",
      price: "6001.2",
      base_asset: "BTC",
      quote_asset: "USD",
      created_at: created,
      expires_at: expires,
    })
    this.quotes.set(SELL_QUOTE_ID, {
      id: SELL_QUOTE_ID,
      market: "ETHUSD",
      side: "SELL",
      price: "224.11",
      base_asset: "ETH",
      quote_asset: "USD",
      created_at: created,
      expires_at: expires,
    })
  }

  /** Every API request seen by the fake, filtered by method and path prefix. */
  apiRequests(method?: string, pathPrefix?: string): RecordedRequest[] {
    return this.requests.filter(
      (r) => (method === undefined || r.method === method) && (pathPrefix === undefined || r.path.startsWith(pathPrefix)),
    )
  }

  revokeAllTokens(): void {
    this.liveTokens.clear()
  }

  fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    if (`${url.origin}${url.pathname}` === TOKEN_URL) return this.token(request)
    const text = request.method === "GET" || request.method === "DELETE" ? "" : await request.text()
    const body: unknown = text === "" ? undefined : JSON.parse(text)
    const path = url.pathname.replace(/^\/v2/, "")
    this.requests.push({
      method: request.method,
      path,
      search: url.searchParams,
      authorization: request.headers.get("authorization"),
      contentType: request.headers.get("content-type"),
      body,
      at: this.clock.now(),
    })

    const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1]
    const grant = bearer ? this.liveTokens.get(bearer) : undefined
    if (!grant || grant.expiresAt <= this.clock.now()) {
      return problem(401, "Unauthorized", "missing or invalid access token")
    }
    const needed = requiredScope(request.method, path)
    if (needed && !grant.scopes.includes(needed)) {
      return json(403, {
        type: "about:blank",
        title: "Forbidden",
        status: 403,
        detail: `insufficient scopes: found [${grant.scopes.join(" ")}], required one of [${needed}]`,
      })
    }

    const step = this.script.shift() ?? { kind: "pass" }
    switch (step.kind) {
      case "respond":
        return json(step.status, step.body ?? "", step.headers)
      case "network":
        throw new TypeError("fetch failed")
      case "hang":
        return waitForAbort(request.signal)
      case "body_error":
        return brokenBody(step.status ?? 200)
      case "commit": {
        await this.handle(request.method, path, url.searchParams, body)
        if (step.then === "network") throw new TypeError("fetch failed: socket hang up")
        if (step.then === "body") return brokenBody(200)
        return new Response("upstream connect error", { status: step.then, headers: { "content-type": "text/plain" } })
      }
      case "pass":
        return this.handle(request.method, path, url.searchParams, body)
    }
  }

  private async token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text())
    this.tokenRequests.push({ form, contentType: request.headers.get("content-type"), at: this.clock.now() })
    const step = this.tokenScript.shift() ?? { kind: "grant" }
    if (step.kind === "network") throw new TypeError("fetch failed")
    if (step.kind === "hang") return waitForAbort(request.signal)
    if (step.kind === "error") {
      return json(step.status, step.body ?? { error: step.error ?? "server_error" })
    }
    if (form.get("grant_type") !== "client_credentials") return json(400, { error: "unsupported_grant_type" })
    if (form.get("client_id") !== CLIENT_ID || form.get("client_secret") !== CLIENT_SECRET) {
      return json(401, { error: "invalid_client" })
    }
    const scopes = (form.get("scope") ?? "").split(" ").filter(Boolean)
    const token = `tok-${this.issuedTokens.length + 1}-${randomUUID()}`
    this.issuedTokens.push(token)
    const expiresIn = step.expiresIn ?? this.tokenTtlS
    this.liveTokens.set(token, { scopes, expiresAt: this.clock.now() + expiresIn * 1000 })
    const scope = step.scope === undefined ? scopes.join(" ") : step.scope
    return json(200, {
      access_token: token,
      expires_in: expiresIn,
      ...(scope === null ? {} : { scope }),
      token_type: step.tokenType ?? "bearer",
    })
  }

  private async handle(method: string, path: string, search: URLSearchParams, body: unknown): Promise<Response> {
    await Promise.resolve()
    const now = new Date(this.clock.now()).toISOString()
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent)
    const input = (body ?? {}) as Record<string, unknown>
    const str = (v: unknown) => (typeof v === "string" ? v : undefined)

    if (method === "GET" && path === "/quotes") {
      const markets = search.getAll("markets")
      return json(200, { items: [...this.quotes.values()].filter((q) => markets.includes(q.market)) })
    }
    if (method === "GET" && path === "/profiles") {
      return json(200, { items: [{ id: PROFILE_ID, nickname: "Treasury", type: "NORMAL" }] })
    }
    if (parts[0] === "profiles" && parts.length === 2 && method === "GET") {
      return parts[1] === PROFILE_ID
        ? json(200, { id: PROFILE_ID, nickname: "Treasury", type: "NORMAL" })
        : problem(404, "Not Found", `profile not found with id ${parts[1]}`)
    }
    if (parts[0] === "profiles" && parts[2] === "balances" && method === "GET") {
      const assets = search.getAll("assets")
      const items = [
        { asset: "USD", available: "1000000.00", trading: "0" },
        { asset: "BTC", available: "12.5", trading: ".25" },
      ].filter((b) => assets.length === 0 || assets.includes(b.asset))
      return json(200, { items })
    }
    if (parts[0] === "profiles" && parts[2] === "quote-executions") {
      const profileId = parts[1] ?? ""
      if (method === "POST") {
        const quote = this.quotes.get(str(input.quote_id) ?? "")
        if (!quote) return problem(404, "Not Found", `quote not found with id ${String(input.quote_id)}`)
        const refId = str(input.ref_id)
        const existing = [...this.executions.values()].find((e) => refId && e.ref_id === refId && e.profile_id === profileId)
        if (existing) {
          return problem(409, "Already Exists", `quote execution already exists with ref_id '${refId}'`, "already-exists", {
            existing,
          })
        }
        const amounts = executionAmounts({
          side: quote.side,
          price: quote.price,
          base_amount: str(input.base_amount),
          quote_amount: str(input.quote_amount),
        })
        const record: QuoteExecution = {
          id: randomUUID(),
          profile_id: profileId,
          quote_id: quote.id,
          ...(refId ? { ref_id: refId } : {}),
          status: "CREATED",
          market: quote.market,
          side: quote.side,
          price: quote.price,
          base_amount: amounts.base_amount,
          base_asset: quote.base_asset,
          quote_amount: amounts.quote_amount,
          quote_asset: quote.quote_asset,
          created_at: now,
        }
        this.executions.set(record.id, record)
        return json(200, record)
      }
      if (parts.length === 4 && method === "GET") {
        const record = this.executions.get(parts[3] ?? "")
        return record && record.profile_id === profileId
          ? json(200, record)
          : problem(404, "Not Found", `quote execution not found with id ${parts[3]}`)
      }
      if (parts.length === 3 && method === "GET") {
        const items = [...this.executions.values()].filter((e) => e.profile_id === profileId)
        return json(200, { total_count: items.length, items })
      }
    }
    if (parts[0] === "conversion" && parts[1] === "stablecoins") {
      const id = parts[2]
      if (method === "POST" && id === undefined) {
        const refId = str(input.ref_id)
        const existing = [...this.conversions.values()].find((c) => refId && c.ref_id === refId)
        if (existing) {
          return problem(409, "Already Exists", `conversion already exists with ref_id '${refId}'`, "already-exists", {
            existing,
          })
        }
        const record: Conversion = {
          id: randomUUID(),
          profile_id: str(input.profile_id),
          amount: str(input.amount),
          source_asset: str(input.source_asset),
          target_asset: str(input.target_asset),
          status: "CREATED",
          ...(refId ? { ref_id: refId } : {}),
          identity_id: "00000000-0000-0000-0000-000000000000",
          account_id: "00000000-0000-0000-0000-000000000000",
          created_at: now,
          updated_at: now,
        }
        this.conversions.set(record.id, record)
        return json(200, record)
      }
      if (method === "GET" && id === undefined) {
        const refId = search.get("ref_id")
        const items = [...this.conversions.values()].filter((c) => refId === null || c.ref_id === refId)
        return json(200, { items })
      }
      const record = this.conversions.get(id ?? "")
      if (!record) return problem(404, "Not Found", `conversion with id ${id} not found`)
      if (method === "GET") return json(200, record)
      if (method === "DELETE") {
        if (record.status !== "CREATED") {
          return problem(409, "Conflict", `conversion ${record.id} is ${record.status} and cannot be cancelled`, undefined, {
            status: record.status,
          })
        }
        const cancelled: Conversion = { ...record, status: "CANCELLED", cancelled_at: now, updated_at: now }
        this.conversions.set(record.id, cancelled)
        return json(200, cancelled)
      }
    }
    if (method === "POST" && parts[0] === "sandbox" && parts[3] === "deposit") {
      return json(200, { activity_id: randomUUID() })
    }
    if (path === "/sandbox/admin/faults" || path === "/admin/faults") {
      if (method === "PUT") this.faults = body
      return json(200, this.faults)
    }
    return problem(404, "Not Found", `no route for ${method} ${path}`)
  }
}

function requiredScope(method: string, path: string): string | undefined {
  if (path.includes("/admin/faults")) return "sandbox:admin"
  if (path === "/quotes") return "exchange:read_quote"
  if (/\/quote-executions/.test(path)) return method === "POST" ? "exchange:write_quote_execution" : "exchange:read_quote_execution"
  if (path.startsWith("/conversion/stablecoins")) {
    return method === "GET" ? "conversion:read_conversion_stablecoin" : "conversion:write_conversion_stablecoin"
  }
  return "funding:read_profile"
}

/** A client config wired to a fake clock and service; `events` collects the log. */
export function testConfig(
  clock: FakeClock,
  upstream: FakeUpstream,
  overrides: Partial<UpstreamClientConfig> = {},
): UpstreamClientConfig & { events: UpstreamLogEvent[] } {
  const events: UpstreamLogEvent[] = []
  return {
    baseUrl: BASE_URL,
    tokenUrl: TOKEN_URL,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    scopes: API_SCOPES,
    timeoutMs: 10_000,
    fetch: upstream.fetch,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    timeout: clock.timeout,
    log: (event) => events.push(event),
    events,
    ...overrides,
  }
}
