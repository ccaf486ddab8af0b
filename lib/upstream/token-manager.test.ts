import { beforeEach, describe, expect, it } from "vitest"
import { SANDBOX_ADMIN_SCOPE } from "@/lib/schemas/scopes"
import { createUpstreamClient } from "@/lib/upstream/client"
import { UpstreamConfigError, UpstreamError } from "@/lib/upstream/errors"
import { API_SCOPES, CLIENT_ID, CLIENT_SECRET, FakeClock, FakeUpstream, testConfig } from "@/test/fake-upstream"

let clock: FakeClock
let upstream: FakeUpstream

beforeEach(() => {
  clock = new FakeClock()
  upstream = new FakeUpstream(clock)
})

function everythingSaid(error: unknown, events: unknown[]): string {
  const parts = [JSON.stringify(events)]
  if (error instanceof Error) parts.push(error.message, error.stack ?? "", JSON.stringify(error), String(error))
  return parts.join("\n")
}

describe("token manager", () => {
  it("asks with form-encoded client credentials and the scope set, then sends the token as Bearer", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()

    expect(upstream.tokenRequests).toHaveLength(1)
    const [tokenRequest] = upstream.tokenRequests
    expect(tokenRequest?.contentType).toBe("application/x-www-form-urlencoded")
    expect(tokenRequest?.form.get("grant_type")).toBe("client_credentials")
    expect(tokenRequest?.form.get("client_id")).toBe(CLIENT_ID)
    expect(tokenRequest?.form.get("client_secret")).toBe(CLIENT_SECRET)
    expect(tokenRequest?.form.get("scope")?.split(" ").sort()).toEqual([...API_SCOPES].sort())
    expect(upstream.requests[0]?.authorization).toBe(`Bearer ${upstream.issuedTokens[0]}`)
  })

  it("reuses the cached token and refreshes it 60 s before expiry", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()
    expect(upstream.tokenRequests).toHaveLength(1)

    // expires_in 3599 s: still fresh 1 ms before the refresh point.
    clock.advance(3599_000 - 60_000 - 1)
    await client.listProfiles()
    expect(upstream.tokenRequests).toHaveLength(1)

    clock.advance(1)
    await client.listProfiles()
    expect(upstream.tokenRequests).toHaveLength(2)
    expect(upstream.requests[2]?.authorization).toBe(`Bearer ${upstream.issuedTokens[1]}`)

    await client.listProfiles()
    expect(upstream.tokenRequests).toHaveLength(2)
  })

  it("refreshes a short-lived token at half its lifetime rather than on every call", async () => {
    upstream.tokenTtlS = 60
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()
    clock.advance(29_999)
    await client.listProfiles()
    expect(upstream.tokenRequests).toHaveLength(1)
    clock.advance(1)
    await client.listProfiles()
    expect(upstream.tokenRequests).toHaveLength(2)
  })

  it("shares one token request among 50 concurrent callers (single-flight)", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    const results = await Promise.all(Array.from({ length: 50 }, () => client.listProfiles()))
    expect(results).toHaveLength(50)
    expect(upstream.tokenRequests).toHaveLength(1)
    expect(upstream.requests).toHaveLength(50)
    expect(new Set(upstream.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${upstream.issuedTokens[0]}`]))
  })

  it("single-flights the refresh too: 50 callers after expiry → one more token request", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()
    clock.advance(3600_000)
    await Promise.all(Array.from({ length: 50 }, () => client.listProfiles()))
    expect(upstream.tokenRequests).toHaveLength(2)
  })

  it("keeps one token per scope set: the sandbox admin scope gets its own", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()
    await client.getFaults()
    await client.listQuotes(["BTCUSD"])
    await client.putFaults({ rules: [] })

    expect(upstream.tokenRequests.map((r) => r.form.get("scope"))).toEqual([
      [...API_SCOPES].sort().join(" "),
      SANDBOX_ADMIN_SCOPE,
    ])
    const faultCalls = upstream.requests.filter((r) => r.path.includes("/admin/faults"))
    expect(faultCalls.every((r) => r.authorization === `Bearer ${upstream.issuedTokens[1]}`)).toBe(true)
    expect(faultCalls[0]?.path).toBe("/admin/faults")
  })

  it("on a 401 drops the token, gets one fresh token and retries the call once", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()
    upstream.revokeAllTokens()

    await expect(client.getProfile("b7b77d82-e6a7-4ae9-9904-36231aedf985")).resolves.toMatchObject({ nickname: "Treasury" })
    expect(upstream.tokenRequests).toHaveLength(2)
    expect(upstream.requests).toHaveLength(3)
    expect(upstream.requests[2]?.authorization).toBe(`Bearer ${upstream.issuedTokens[1]}`)
  })

  it("retries a create once after a 401 with the same body and ref_id, and nothing more", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    await client.listProfiles()
    upstream.revokeAllTokens()
    const body = { quote_id: "366a26d2-3098-4226-a520-4bb43ae4d922", base_amount: "0.5", ref_id: "ref-401" }
    const result = await client.createQuoteExecution("b7b77d82-e6a7-4ae9-9904-36231aedf985", body)
    expect(result).toMatchObject({ replayed: false, attempts: 1 })
    const posts = upstream.apiRequests("POST")
    expect(posts).toHaveLength(2)
    expect(posts[0]?.body).toEqual(body)
    expect(posts[1]?.body).toEqual(body)
    expect(upstream.executions.size).toBe(1)
  })

  it("a second 401 with a fresh token is a configuration error, not a loop", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    upstream.script.push(
      { kind: "respond", status: 401, body: { type: "about:blank", title: "Unauthorized", status: 401 } },
      { kind: "respond", status: 401, body: { type: "about:blank", title: "Unauthorized", status: 401 } },
    )
    const error = await client.listProfiles().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamConfigError)
    expect((error as UpstreamConfigError).outcome).toBe("rejected")
    expect(upstream.requests).toHaveLength(2)
    expect(upstream.tokenRequests).toHaveLength(2)
  })

  it.each([
    ["invalid_client", 401, /refused the console's client credentials/],
    ["unauthorized_client", 400, /refused the console's client credentials/],
    ["invalid_scope", 400, /scope .*exchange:read_quote.* not granted/],
  ])("%s → UpstreamConfigError that never shows the secret", async (code, status, message) => {
    const config = testConfig(clock, upstream)
    const client = createUpstreamClient(config)
    upstream.tokenScript.push({ kind: "error", status, error: code })
    const error = await client.listQuotes(["BTCUSD"]).catch((e: unknown) => e)

    expect(error).toBeInstanceOf(UpstreamConfigError)
    expect(error).toBeInstanceOf(UpstreamError)
    expect((error as UpstreamConfigError).message).toMatch(message)
    expect((error as UpstreamConfigError).outcome).toBe("rejected")
    expect(everythingSaid(error, config.events)).not.toContain(CLIENT_SECRET)
    expect(upstream.requests).toHaveLength(0)
    // Not retried: a wrong credential does not get better.
    expect(upstream.tokenRequests).toHaveLength(1)
  })

  it("wrong credentials (the fake checks them) → refused credentials", async () => {
    const config = testConfig(clock, upstream, { clientSecret: "not-the-secret-0000" })
    const error = await createUpstreamClient(config)
      .listProfiles()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamConfigError)
    expect(everythingSaid(error, config.events)).not.toContain("not-the-secret-0000")
  })

  it("a granted scope narrower than asked → 'scope X not granted'", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    upstream.tokenScript.push({ kind: "grant", scope: API_SCOPES.filter((s) => s !== "funding:read_profile").join(" ") })
    const error = await client.listProfiles().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamConfigError)
    expect((error as Error).message).toBe("scope funding:read_profile not granted to the console's client")
    expect(upstream.requests).toHaveLength(0)
  })

  it("a token answer without scope means the scope asked was granted (RFC 6749 §5.1)", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    upstream.tokenScript.push({ kind: "grant", scope: null })
    await expect(client.listProfiles()).resolves.toMatchObject({ items: [{ nickname: "Treasury" }] })
  })

  it("a token endpoint outage is retried within the call's attempts (nothing reached the API)", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    upstream.tokenScript.push({ kind: "network" }, { kind: "error", status: 503 })
    await expect(client.listProfiles()).resolves.toBeDefined()
    expect(upstream.tokenRequests).toHaveLength(3)
    expect(upstream.requests).toHaveLength(1)
  })

  it("a token endpoint that stays down fails the call as 'rejected': the API never saw it", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    upstream.tokenScript.push({ kind: "network" }, { kind: "network" }, { kind: "hang" })
    const error = await client
      .createConversion({ profile_id: "p1", amount: "10.00", source_asset: "USD", target_asset: "USDP", ref_id: "r1" })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamError)
    expect((error as UpstreamError).name).toBe("UpstreamTimeoutError")
    expect((error as UpstreamError).outcome).toBe("rejected")
    expect(upstream.requests).toHaveLength(0)
  })

  it("a token request waits tokenTimeoutMs when it is set, the API's calls their own timeoutMs", async () => {
    const client = createUpstreamClient(testConfig(clock, upstream, { timeoutMs: 1000, tokenTimeoutMs: 7000 }))
    upstream.tokenScript.push({ kind: "network" }, { kind: "network" }, { kind: "hang" })
    const started = clock.now()
    const error = await client.listProfiles().catch((e: unknown) => e)
    expect(error).toMatchObject({ name: "UpstreamTimeoutError", timeoutMs: 7000, outcome: "rejected" })
    expect(clock.now() - started).toBeGreaterThanOrEqual(7000)
    upstream.script.push({ kind: "hang" }, { kind: "hang" }, { kind: "hang" })
    const read = await client.listProfiles().catch((e: unknown) => e)
    expect(read).toMatchObject({ name: "UpstreamTimeoutError", timeoutMs: 1000 })
  })

  it("keeps using a still-valid token when its early refresh fails", async () => {
    const config = testConfig(clock, upstream)
    const client = createUpstreamClient(config)
    await client.listProfiles()
    clock.advance(3599_000 - 30_000) // inside the refresh margin, 30 s before expiry
    upstream.tokenScript.push({ kind: "error", status: 503 })
    await expect(client.listProfiles()).resolves.toBeDefined()
    expect(upstream.requests[1]?.authorization).toBe(`Bearer ${upstream.issuedTokens[0]}`)
    expect(config.events.some((e) => e.event === "token_reused")).toBe(true)
  })

  it("a malformed token answer is an error that does not quote the body (it may hold the token)", async () => {
    const config = testConfig(clock, upstream)
    const client = createUpstreamClient(config)
    upstream.tokenScript.push({ kind: "grant", tokenType: "mac" })
    const error = await client.listProfiles().catch((e: unknown) => e)
    expect((error as Error).name).toBe("UpstreamResponseError")
    expect((error as Error).message).toContain("token_type")
    for (const token of upstream.issuedTokens) expect(everythingSaid(error, config.events)).not.toContain(token)
  })

  it("never logs a secret or a token", async () => {
    const config = testConfig(clock, upstream)
    const client = createUpstreamClient(config)
    await client.listProfiles()
    upstream.revokeAllTokens()
    await client.listQuotes(["BTCUSD"])
    await client.getFaults()
    upstream.script.push({ kind: "network" })
    await client.listProfiles()

    expect(config.events.length).toBeGreaterThan(5)
    expect(config.events.some((e) => e.event === "token")).toBe(true)
    const logged = JSON.stringify(config.events)
    expect(logged).not.toContain(CLIENT_SECRET)
    expect(upstream.issuedTokens.length).toBeGreaterThanOrEqual(3)
    for (const token of upstream.issuedTokens) expect(logged).not.toContain(token)
    expect(logged).not.toMatch(/Bearer/i)
  })

  it("does not keep the secret on any object it hands out", () => {
    const client = createUpstreamClient(testConfig(clock, upstream))
    expect(JSON.stringify(client)).not.toContain(CLIENT_SECRET)
    expect(Object.values(client).some((v) => typeof v === "string" && v.includes(CLIENT_SECRET))).toBe(false)
  })
})
