import type { Database } from "@/lib/db/client"
import type { DatabaseLimits } from "@/lib/env"
import type { Staff } from "@/lib/auth/roles"
import { openIntent } from "@/lib/console/intents"
import { type ConsoleDeps, type Placed, createConversion, executeQuote } from "@/lib/console/operations"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import type { FaultSettingsUpdate } from "@/lib/schemas/sandbox-tools"
import type { ConversionsApi } from "@/lib/schemas/constants"
import { scopesFor } from "@/lib/schemas/scopes"
import { type Sandbox, type SandboxConfig, createSandbox } from "@/lib/sandbox"
import { type UpstreamClient, createUpstreamClient } from "@/lib/upstream"
import { type TestDriver, createTestDatabase } from "@/test/db"

export interface ConsoleHarness extends ConsoleDeps {
  database: Database
  sandbox: Sandbox
  upstream: UpstreamClient
  setFaults(body: FaultSettingsUpdate): Promise<void>
  /** POST /sandbox/admin/market-moves: jolts an asset's price; quotes held before keep theirs. */
  moveMarket(asset: string, changePercent: string): Promise<void>
  /** POST /sandbox/admin/orchestrations/{id}/approve|reject: the service's dashboard deciding one waiting in PENDING. */
  decideOrchestration(id: string, decision: "approve" | "reject"): Promise<void>
  /** Another console instance on the same database and service: its own client, caches and in-flight table. */
  anotherInstance(): ConsoleDeps
  close(): Promise<void>
}

export const FAST_SANDBOX: SandboxConfig = {
  tokenTtlS: 3599,
  quoteTtlMs: 30_000,
  settleDelayMs: 0,
  rateLimits: false,
  maxExecutionUsd: 50_000,
  maxConversionUsd: 1_000_000,
  seed: 7,
}

/**
 * The console's server side against the real embedded sandbox, in process: a fresh
 * database, the sandbox on it, and the upstream client calling the sandbox's fetch entry.
 */
export async function createConsoleHarness(
  options: {
    driver?: TestDriver
    /** Postgres: the bounds of its connections (none unless given). */
    limits?: DatabaseLimits
    sandbox?: Partial<SandboxConfig>
    timeoutMs?: number
    /** The conversion API of the console's client (default stablecoin-conversions). */
    conversionsApi?: ConversionsApi | (() => Promise<ConversionsApi>)
  } = {},
): Promise<ConsoleHarness> {
  const database = await createTestDatabase(options.driver ?? "pglite", options.limits)
  const sandbox = createSandbox({ db: database.db, config: { ...FAST_SANDBOX, ...options.sandbox } })
  const credentials = await sandbox.ensureClient()
  const client = () =>
    createUpstreamClient({
      baseUrl: "http://sandbox.internal/sandbox/v2",
      tokenUrl: "http://sandbox.internal/sandbox/oauth2/token",
      ...credentials,
      scopes: scopesFor("both"),
      ...(options.conversionsApi ? { conversionsApi: options.conversionsApi } : {}),
      // Long enough for 20 concurrent calls on one PGlite connection on a busy machine; the
      // fault tests that time a call out pass their own short timeout.
      timeoutMs: options.timeoutMs ?? 10_000,
      // The sandbox checks the client secret with scrypt: CPU that a busy machine can stretch
      // past the short timeouts the fault tests use for the API's calls.
      tokenTimeoutMs: 15_000,
      fetch: (request) => sandbox.fetch(request),
      retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2000 },
      limits: { token: 1000, quoteExecutions: 10_000, other: 10_000 },
    })
  const upstream = client()
  /** POST /sandbox/admin/… with a token of the sandbox:admin scope. */
  const adminPost = async (adminPath: string, body: unknown): Promise<Response> => {
    const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")
    const token = await sandbox.fetch(
      new Request("http://sandbox.internal/sandbox/oauth2/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
        body: "grant_type=client_credentials&scope=sandbox%3Aadmin",
      }),
    )
    const { access_token: accessToken } = (await token.json()) as { access_token: string }
    return sandbox.fetch(
      new Request(`http://sandbox.internal/sandbox/admin${adminPath}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
        body: JSON.stringify(body),
      }),
    )
  }
  return {
    anotherInstance: () => ({ db: database.db, upstream: client() }),
    db: database.db,
    database,
    sandbox,
    upstream,
    setFaults: async (body) => {
      await upstream.putFaults(body)
    },
    moveMarket: async (asset, changePercent) => {
      const moved = await adminPost("/market-moves", { asset, change_percent: changePercent })
      if (!moved.ok) throw new Error(`market move failed: ${moved.status}`)
    },
    decideOrchestration: async (id, decision) => {
      const decided = await adminPost(`/orchestrations/${encodeURIComponent(id)}/${decision}`, {})
      if (!decided.ok) throw new Error(`${decision} failed: ${decided.status}`)
    },
    close: async () => {
      await sandbox.stop()
      await database.close()
    },
  }
}

/**
 * An execution placed without the submission's admission (no limits, no approval): the
 * intent is opened (or found) once the placement starts, as a direct create would. For
 * tests of the placement itself (coalescing, retries, faults, the reconciler).
 */
export function placeExecution(deps: ConsoleDeps, staff: Staff, profileId: string, body: QuoteExecutionCreate & { ref_id: string }): Promise<Placed<QuoteExecution>> {
  const request = { profile_id: profileId, ...body }
  return executeQuote(deps, staff, profileId, body, () =>
    openIntent(deps.db, { staff, operation: "create_execution", profileId, refId: body.ref_id, request }),
  )
}

/** A conversion placed without the submission's admission; see placeExecution. */
export function placeConversion(deps: ConsoleDeps, staff: Staff, body: ConversionCreate & { ref_id: string }): Promise<Placed<Conversion>> {
  return createConversion(deps, staff, body, async () =>
    openIntent(deps.db, {
      staff,
      operation: "create_conversion",
      profileId: body.profile_id,
      refId: body.ref_id,
      request: body,
      upstreamApi: await deps.upstream.conversionsApi(),
    }),
  )
}
