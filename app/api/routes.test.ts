import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import fc from "fast-check"
import { count, eq, ne } from "drizzle-orm"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { signsInBySso } from "@/test/approvals"
import { sessionCookie } from "@/test/session"
import { ROLES, type Role, roleAtLeast } from "@/lib/auth/roles"
import type { ConsoleRuntime } from "@/lib/console/runtime"
import { consoleIntents } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import { consoleConversionCreateSchema } from "@/lib/schemas/conversion"
import { consoleQuoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import { silentMovementRequestSchema } from "@/lib/schemas/silent-movement"
import { lostRecordRequestSchema } from "@/lib/schemas/lost-record"
import { historyRequestSchema } from "@/lib/schemas/sandbox-history"
import { sandboxDepositRequestSchema } from "@/lib/schemas/sandbox-tools"
import { faultSettingsUpdateSchema } from "@/lib/schemas/sandbox-tools"

// The console API, called through its real route modules with real sessions, against
// the embedded sandbox in process on a fresh PGlite folder.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-routes-"))
const SECRET = "route-tests-secret-0123456789-abcdefghijklmnop"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "silent"

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>
interface Call {
  params: Record<string, string>
  query?: string
  body?: unknown
}

const APP_API = path.resolve(import.meta.dirname)
/**
 * Routes outside withStaff on purpose: next-auth's own endpoints, the health checks, metrics
 * (withBearerToken) and the service's webhook (withApiKey: a machine with an API key, no
 * session), each tested beside it.
 */
const PUBLIC_ROUTES = new Set([
  "/api/auth/[...nextauth]",
  "/api/health",
  "/api/health/live",
  "/api/health/ready",
  "/api/metrics",
  "/api/webhooks/service",
  // Signed out on purpose (withSignedOut): an invitation's token, or a passkey sign-in's challenge (app/api/admin/staff.test.ts).
  "/api/invitations/accept",
  "/api/invitations/passkey-options",
  "/api/sign-in/passkey-options",
])

let runtime: ConsoleRuntime
let profileId: string
let executionId: string
let conversionId: string
let transferId: string

/** A held quote as a client of the console gets it: from the console's quote cache. */
/** A held BUY quote; with a role, served to that role's demo user as GET /api/quotes serves it. */
async function buyQuoteId(servedTo?: Role): Promise<string> {
  const { quotes } = await runtime.quotes.get(["ETHUSD"])
  const quote = quotes.find((q) => q.side === "BUY")!
  if (servedTo) {
    const { rememberServed } = await import("@/lib/console/served-quotes")
    await rememberServed(runtime.db, { email: `${servedTo}@example.com`, role: servedTo }, [quote])
  }
  return quote.id
}

async function pendingConversionId(): Promise<string> {
  const created = await runtime.upstream.createConversion({
    profile_id: profileId,
    amount: "1.00",
    source_asset: "USD",
    target_asset: "USDP",
    ref_id: randomUUID(),
  })
  return created.record.id
}

/** The ref_id of an execution the console placed (its intent log knows it). */
async function consoleExecutionRefId(): Promise<string> {
  const { placeExecution } = await import("@/test/console")
  const refId = randomUUID()
  await placeExecution(runtime, { email: "trader@example.com", role: "trader" }, profileId, { quote_id: await buyQuoteId(), base_amount: "0.001", ref_id: refId })
  return refId
}

/** A session someone else holds, for an admin to end. */
async function openSessionId(): Promise<string> {
  const { createSession } = await import("@/lib/auth/sessions")
  return createSession(runtime.db, { email: "viewer@example.com", role: "viewer", provider: "credentials", userAgent: null, address: null })
}

/** An event the console's reader has read: a deposit at the sandbox, read now. */
async function readEventId(): Promise<string> {
  await runtime.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "1.00" })
  await runtime.events!.read()
  const { consoleEvents } = await import("@/lib/db/schema")
  const [row] = await runtime.db.select({ id: consoleEvents.id }).from(consoleEvents).limit(1)
  if (!row) throw new Error("the reader recorded no event")
  return row.id
}

/** Someone active on the staff table, for a change or removal to act on. */
async function activeStaffEmail(): Promise<string> {
  const { consoleStaff } = await import("@/lib/db/schema")
  const email = `member-${randomUUID()}@example.com`
  await runtime.db.insert(consoleStaff).values({ email, role: "viewer", status: "active", source: "invitation" })
  return email
}

async function pendingInvitationId(): Promise<string> {
  const { inviteStaff } = await import("@/lib/auth/staff")
  const { invitation } = await inviteStaff(runtime.db, { email: "admin@example.com", role: "admin" }, { email: `invitee-${randomUUID()}@example.com`, role: "viewer" })
  return invitation.id
}

/** Every console route, its minimum role, and how to call it successfully. */
/** A pending request for a 10,000.00 USD conversion, asked for by `maker` (a fresh trader unless given). */
async function pendingRequestId(maker?: string): Promise<string> {
  const { submitConversion } = await import("@/lib/console/submission")
  const staff = { email: maker ?? `maker-${randomUUID()}@example.com`, role: "trader" as const }
  // A maker the console knows (a demo user, or one who signed in through SSO): a request
  // whose maker is no longer on the staff is voided, not decided.
  if (!maker) await signsInBySso(runtime.db, staff)
  const submission = await submitConversion(runtime, staff, {
    profile_id: profileId,
    amount: "10000.00",
    source_asset: "USD",
    target_asset: "USDG",
    ref_id: randomUUID(),
  })
  if (submission.kind !== "request") throw new Error("expected an approval request")
  return submission.request.id
}

/** A policy change waiting for a second admin, proposed by `maker` (another admin unless given); any other pending one is withdrawn first (one waits at a time). */
async function pendingPolicyChangeId(maker = "admin2@example.com"): Promise<string> {
  const { consolePolicyChanges } = await import("@/lib/db/schema")
  const { readPolicy } = await import("@/lib/console/policy")
  const { policyDigest } = await import("@/lib/console/policy-changes")
  await runtime.db.update(consolePolicyChanges).set({ state: "WITHDRAWN" }).where(eq(consolePolicyChanges.state, "PENDING"))
  const { policy, version } = await readPolicy(runtime.db)
  const proposed = { ...policy, request_ttl_minutes: policy.request_ttl_minutes === 240 ? 241 : 240 }
  const [row] = await runtime.db
    .insert(consolePolicyChanges)
    .values({ state: "PENDING", policy: proposed, policyDigest: policyDigest(proposed), baseVersion: version, proposedBy: maker, proposedAt: new Date(), expiresAt: new Date(Date.now() + 3600_000) })
    .returning({ id: consolePolicyChanges.id })
  return row!.id
}

/** A team channel to remove. */
async function channelId(): Promise<string> {
  const { addChannel } = await import("@/lib/console/notify/inbox")
  return (await addChannel(runtime.db, "admin@example.com", { name: "to remove", type: "chat", url: "https://chat.example/hooks/y", kinds: ["approval_waiting"] })).id
}

const EXPECTED: Record<string, { minimum: Role; call: (role?: Role) => Promise<Call>; status?: number }> = {
  "GET /api/me": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "GET /api/me/limits": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  ...Object.fromEntries(
    (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map((method) => [
      `${method} /api/[...path]`,
      { minimum: "viewer", status: 404, call: () => Promise.resolve({ params: {}, body: method === "GET" ? undefined : {} }) },
    ]),
  ),
  "GET /api/profiles": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "GET /api/profiles/[profileId]/balances": { minimum: "viewer", call: () => Promise.resolve({ params: { profileId } }) },
  "GET /api/quotes": { minimum: "viewer", call: () => Promise.resolve({ params: {}, query: "markets=BTCUSD" }) },
  "GET /api/profiles/[profileId]/quote-executions": {
    minimum: "viewer",
    call: () => Promise.resolve({ params: { profileId }, query: "limit=5" }),
  },
  "POST /api/profiles/[profileId]/quote-executions": {
    minimum: "trader",
    call: async (role) => ({ params: { profileId }, body: { quote_id: await buyQuoteId(role), base_amount: "0.001", ref_id: randomUUID() } }),
  },
  "GET /api/profiles/[profileId]/quote-executions/export": {
    minimum: "support",
    call: () => Promise.resolve({ params: { profileId }, query: "side=BUY&status=SETTLED" }),
  },
  "GET /api/profiles/[profileId]/quote-executions/lookup": {
    minimum: "support",
    call: async () => ({ params: { profileId }, query: `ref_id=${await consoleExecutionRefId()}` }),
  },
  "GET /api/profiles/[profileId]/quote-executions/[id]": {
    minimum: "viewer",
    call: () => Promise.resolve({ params: { profileId, id: executionId } }),
  },
  "GET /api/conversions": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `profile_id=${profileId}` }) },
  "POST /api/conversions": {
    minimum: "trader",
    call: () =>
      Promise.resolve({
        params: {},
        body: { profile_id: profileId, amount: "2.50", source_asset: "USD", target_asset: "PYUSD", ref_id: randomUUID() },
      }),
  },
  "GET /api/conversions/[id]": { minimum: "support", call: () => Promise.resolve({ params: { id: conversionId } }) },
  "GET /api/conversions/export": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `profile_id=${profileId}` }) },
  "GET /api/conversions/lookup": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `q=${conversionId}` }) },
  "GET /api/transfers": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `profile_id=${profileId}&status=COMPLETED` }) },
  "GET /api/transfers/[id]": { minimum: "support", call: () => Promise.resolve({ params: { id: transferId } }) },
  "GET /api/transfers/export": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `profile_id=${profileId}` }) },
  "GET /api/search": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `q=${conversionId}` }) },
  "GET /api/intents": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `record_id=${conversionId}` }) },
  "GET /api/intents/[id]": { minimum: "support", call: async () => ({ params: { id: await pendingRequestId() } }) },
  "DELETE /api/conversions/[id]": { minimum: "trader", call: async () => ({ params: { id: await pendingConversionId() } }) },
  "GET /api/approvals": { minimum: "trader", call: () => Promise.resolve({ params: {}, query: "state=PENDING" }) },
  "GET /api/approvals/[id]": { minimum: "trader", call: async () => ({ params: { id: await pendingRequestId() } }) },
  "POST /api/approvals/bulk-approve": { minimum: "trader", call: async () => ({ params: {}, body: { ids: [await pendingRequestId()] } }) },
  "POST /api/approvals/[id]/approve": { minimum: "trader", call: async () => ({ params: { id: await pendingRequestId() }, body: {} }) },
  "POST /api/approvals/[id]/reject": {
    minimum: "trader",
    call: async () => ({ params: { id: await pendingRequestId() }, body: { reason: "not today" } }),
  },
  // Only the maker withdraws: the request is the caller's own.
  "POST /api/approvals/[id]/withdraw": {
    minimum: "trader",
    call: async (role) => ({ params: { id: await pendingRequestId(role && `${role}@example.com`) }, body: {} }),
  },
  "GET /api/policy": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "PUT /api/policy": {
    minimum: "admin",
    call: async () => ({ params: {}, body: (await import("@/lib/schemas/approvals")).DEFAULT_POLICY }),
  },
  "GET /api/policy/versions": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "limit=5" }) },
  "GET /api/policy/changes": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "limit=5" }) },
  // Another admin's change; the role is checked inside, so a non-admin's attempt is on the decision trail.
  "POST /api/policy/changes/[id]/approve": { minimum: "admin", call: async () => ({ params: { id: await pendingPolicyChangeId() }, body: {} }) },
  "POST /api/policy/changes/[id]/reject": { minimum: "admin", call: async () => ({ params: { id: await pendingPolicyChangeId() }, body: { reason: "not now" } }) },
  // Only the maker withdraws: the change is the caller's own.
  "POST /api/policy/changes/[id]/withdraw": { minimum: "admin", call: async (role) => ({ params: { id: await pendingPolicyChangeId(role && `${role}@example.com`) }, body: {} }) },
  "GET /api/audit": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "limit=5" }) },
  "POST /api/audit/reconcile": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "GET /api/audit/export": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "state=SUCCEEDED" }) },
  "GET /api/audit/sign-in-events": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "limit=5" }) },
  "GET /api/admin/sessions": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "GET /api/audit/decisions": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "limit=5" }) },
  "GET /api/account/passkeys": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "POST /api/account/passkeys/options": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  // Without a real authenticator: a registration that does not verify (test/authenticator.ts makes real ones elsewhere).
  "POST /api/account/passkeys": { minimum: "viewer", status: 400, call: () => Promise.resolve({ params: {}, body: { name: "key", response: { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "e30", attestationObject: "oA" } } } }) },
  "PATCH /api/account/passkeys/[id]": { minimum: "viewer", status: 404, call: () => Promise.resolve({ params: { id: "no-such-passkey" }, body: { name: "key" } }) },
  "DELETE /api/account/passkeys/[id]": { minimum: "viewer", status: 404, call: () => Promise.resolve({ params: { id: "no-such-passkey" } }) },
  "GET /api/events": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "status=processed&limit=5" }) },
  "POST /api/events/[id]/replay": { minimum: "admin", call: async () => ({ params: { id: await readEventId() } }) },
  "DELETE /api/admin/sessions/[id]": { minimum: "admin", call: async () => ({ params: { id: await openSessionId() } }) },
  "GET /api/admin/staff": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "POST /api/admin/staff": { minimum: "admin", call: () => Promise.resolve({ params: {}, body: { email: `invitee-${randomUUID()}@example.com`, role: "viewer" } }) },
  "PATCH /api/admin/staff/[email]": { minimum: "admin", call: async () => ({ params: { email: await activeStaffEmail() }, body: { role: "support" } }) },
  "DELETE /api/admin/staff/[email]": { minimum: "admin", call: async () => ({ params: { email: await activeStaffEmail() } }) },
  "DELETE /api/admin/staff/invitations/[id]": { minimum: "admin", call: async () => ({ params: { id: await pendingInvitationId() } }) },
  "PUT /api/admin/staff/sign-in-rules": { minimum: "admin", call: () => Promise.resolve({ params: {}, body: { passkey_roles: [] } }) },
  "GET /api/sandbox/settings": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "PUT /api/sandbox/settings": { minimum: "admin", call: () => Promise.resolve({ params: {}, body: { rules: [] } }) },
  "GET /api/sandbox/status": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "GET /api/sandbox/conversions-api": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "PUT /api/sandbox/conversions-api": {
    minimum: "admin",
    call: () => Promise.resolve({ params: {}, body: { api: "stablecoin-conversions" } }),
  },
  "GET /api/markets/[market]/history": { minimum: "viewer", call: () => Promise.resolve({ params: { market: "BTCUSD" }, query: "range=24h" }) },
  "GET /api/markets/prices": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "GET /api/overview": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "GET /api/stream": { minimum: "viewer", call: () => Promise.resolve({ params: {}, query: "markets=BTCUSD" }) },
  "GET /api/notifications": { minimum: "trader", call: () => Promise.resolve({ params: {}, query: `since=${new Date().toISOString()}` }) },
  "GET /api/notifications/inbox": { minimum: "viewer", call: () => Promise.resolve({ params: {}, query: "unread=1" }) },
  "POST /api/notifications/inbox/read": { minimum: "viewer", call: () => Promise.resolve({ params: {}, body: {} }) },
  "GET /api/notifications/preferences": { minimum: "viewer", call: () => Promise.resolve({ params: {} }) },
  "PUT /api/notifications/preferences": { minimum: "viewer", call: () => Promise.resolve({ params: {}, body: { items: [{ kind: "passkey_added", console: true, email: true }] } }) },
  "GET /api/admin/notification-channels": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "POST /api/admin/notification-channels": {
    minimum: "admin",
    call: () => Promise.resolve({ params: {}, body: { name: "chat", type: "chat", url: "https://chat.example/hooks/x", kinds: ["approval_waiting"] } }),
  },
  "DELETE /api/admin/notification-channels/[id]": { minimum: "admin", call: async () => ({ params: { id: await channelId() } }) },
  "GET /api/admin/notification-settings": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "PUT /api/admin/notification-settings": { minimum: "admin", call: () => Promise.resolve({ params: {}, body: { large_order: { USD: "50000.00" } } }) },
  "GET /api/admin/deliveries": { minimum: "admin", call: () => Promise.resolve({ params: {}, query: "state=parked" }) },
  "POST /api/admin/deliveries/retry": { minimum: "admin", call: () => Promise.resolve({ params: {}, body: { ids: [randomUUID()] } }) },
  "GET /api/statements": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `profile_id=${profileId}&from=${new Date().toISOString().slice(0, 10)}` }) },
  "POST /api/sandbox/silent-movement": {
    minimum: "admin",
    call: () => Promise.resolve({ params: {}, body: { profile_id: profileId, asset: "USD", amount: "0.01" } }),
  },
  // A record id the service does not hold: the fault's 404, passed on (the e2e spec loses a real one).
  "POST /api/sandbox/lost-record": { minimum: "admin", status: 404, call: () => Promise.resolve({ params: {}, body: { record_id: randomUUID() } }) },
  // The generator itself runs in lib/console/sandbox-history.test.ts (once per database); here a seed it refuses.
  "POST /api/sandbox/history": { minimum: "admin", status: 400, call: () => Promise.resolve({ params: {}, body: { seed: 0 } }) },
  "GET /api/statements/export": { minimum: "support", call: () => Promise.resolve({ params: {}, query: `profile_id=${profileId}&from=${new Date().toISOString().slice(0, 10)}&format=csv` }) },
  "POST /api/statements/snapshots": { minimum: "admin", call: () => Promise.resolve({ params: {} }) },
  "POST /api/sandbox/deposit": {
    minimum: "admin",
    call: () => Promise.resolve({ params: {}, body: { profile_id: profileId, asset: "USD", amount: "1.00" } }),
  },
}

/** app/api/**\/route.ts, as "/api/…" route patterns with the module file. */
function walkRoutes(dir = APP_API): { route: string; file: string }[] {
  const found: { route: string; file: string }[] = []
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) found.push(...walkRoutes(full))
    else if (entry === "route.ts") {
      const route = "/api" + path.relative(APP_API, dir).split(path.sep).map((s) => `/${s}`).join("")
      found.push({ route: route === "/api/" ? "/api" : route, file: full })
    }
  }
  return found
}

async function routeHandlers(): Promise<{ key: string; route: string; handler: Handler }[]> {
  const handlers: { key: string; route: string; handler: Handler }[] = []
  for (const { route, file } of walkRoutes()) {
    if (PUBLIC_ROUTES.has(route)) continue
    const mod = (await import(file)) as Partial<Record<Method, Handler>>
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
      const handler = mod[method]
      if (handler) handlers.push({ key: `${method} ${route}`, route, handler })
    }
  }
  return handlers
}

async function cookieOf(role: Role): Promise<string> {
  return sessionCookie(role, { secret: SECRET })
}

async function invoke(
  handler: Handler,
  method: string,
  route: string,
  call: Call,
  options: { role?: Role; origin?: string | null; rawBody?: string } = {},
): Promise<Response> {
  let url = `http://localhost${route}`
  for (const [name, value] of Object.entries(call.params)) url = url.replace(`[${name}]`, encodeURIComponent(value))
  if (call.query) url += `?${call.query}`
  const headers = new Headers()
  if (options.role) headers.set("cookie", await cookieOf(options.role))
  if (method !== "GET" && options.origin !== null) headers.set("origin", options.origin ?? "http://localhost")
  let body: string | undefined
  if (options.rawBody !== undefined || call.body !== undefined) {
    headers.set("content-type", "application/json")
    body = options.rawBody ?? JSON.stringify(call.body)
  }
  return handler(new NextRequest(url, { method, headers, body }), { params: Promise.resolve(call.params) })
}

beforeAll(async () => {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  runtime = await consoleRuntime()
  profileId = (await runtime.upstream.listProfiles()).items[0]!.id
  executionId = (
    await runtime.upstream.createQuoteExecution(profileId, { quote_id: await buyQuoteId(), base_amount: "0.001", ref_id: randomUUID() })
  ).record.id
  conversionId = await pendingConversionId()
  transferId = (await runtime.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "5.00" })).activity_id!
  // A console runtime starting on a loaded 2-core machine (a fresh PGlite and its migrations): a bound for a hang, not a speed check.
}, 180_000)

afterAll(async () => {
  await runtime?.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("authorization matrix (every route under app/api)", () => {
  it("every route has an expected role, and every expectation a route", async () => {
    const keys = (await routeHandlers()).map((h) => h.key).sort()
    expect(keys).toEqual(Object.keys(EXPECTED).sort())
  })

  // Every route × five callers, each through the real handler: minutes on a loaded 2-core
  // machine, so its own bound (a hang detector, not a speed check).
  it("answers exactly 401 signed out, 403 below the role, 2xx at or above it", { timeout: 180_000 }, async () => {
    const outcomes: string[] = []
    const expected: string[] = []
    for (const { key, route, handler } of await routeHandlers()) {
      const spec = EXPECTED[key]
      if (!spec) continue
      const [method] = key.split(" ") as [Method]
      const signedOut = await invoke(handler, method, route, await spec.call())
      outcomes.push(`${key} signed-out ${signedOut.status} ${signedOut.headers.get("content-type")}`)
      expected.push(`${key} signed-out 401 application/problem+json`)
      for (const role of ROLES) {
        const res = await invoke(handler, method, route, await spec.call(role), { role })
        const allowed = roleAtLeast(role, spec.minimum)
        const answer = res.ok ? "2xx" : res.status === spec.status ? String(res.status) : `${res.status} ${await res.text()}`
        outcomes.push(`${key} ${role} ${allowed ? answer : res.status}`)
        expected.push(`${key} ${role} ${allowed ? (spec.status ?? "2xx") : 403}`)
      }
    }
    expect(outcomes).toEqual(expected)
  })

  it("refuses a write from another site, or with no Origin at all, before doing anything", async () => {
    for (const { key, route, handler } of await routeHandlers()) {
      const [method] = key.split(" ") as [Method]
      if (method === "GET") continue
      const spec = EXPECTED[key]!
      for (const origin of ["https://evil.example", null]) {
        const res = await invoke(handler, method, route, await spec.call(), { role: "admin", origin })
        expect(`${key} ${origin} ${res.status}`).toBe(`${key} ${origin} 403`)
        expect(res.headers.get("content-type")).toBe("application/problem+json")
      }
    }
  })
})

describe("routes' answers", () => {
  it("GET /api/profiles pages with the service's cursor, and refuses a bad limit naming it", async () => {
    const { route, handler } = (await routeHandlers()).find((h) => h.key === "GET /api/profiles")!
    const all = (await (await invoke(handler, "GET", route, { params: {} }, { role: "viewer" })).json()) as { items: { id: string }[] }
    const first = (await (await invoke(handler, "GET", route, { params: {}, query: "limit=2" }, { role: "viewer" })).json()) as {
      items: { id: string }[]
      next_page_cursor?: string
    }
    expect(first.items).toHaveLength(2)
    expect(first.next_page_cursor).toBeTruthy()
    const rest = (await (
      await invoke(handler, "GET", route, { params: {}, query: `page_cursor=${encodeURIComponent(first.next_page_cursor!)}` }, { role: "viewer" })
    ).json()) as { items: { id: string }[] }
    expect([...first.items, ...rest.items].map((p) => p.id)).toEqual(all.items.map((p) => p.id))
    const bad = await invoke(handler, "GET", route, { params: {}, query: "limit=0" }, { role: "viewer" })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ meta: { fields: { limit: "at least 1" } } })
  })

  it("GET /api/stream: an event stream that opens with `ready` (the topics the role may read); a bad market, topic or Last-Event-ID is refused naming the field", async () => {
    const handler = (await import("@/app/api/stream/route")).GET as unknown as Handler
    const ok = await invoke(handler, "GET", "/api/stream", { params: {}, query: "quotes=all" }, { role: "viewer" })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    expect(ok.headers.get("x-accel-buffering")).toBe("no")
    const reader = ok.body!.getReader()
    let text = ""
    while (!text.includes("event: ready")) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(text).toMatch(/event: ready\nid: \d+\ndata: \{"last_event_id":"\d+","heartbeat_ms":15000,"session_recheck_ms":20000,"topics":\[\]\}/)
    // A viewer asking for every topic is carried those a viewer may read.
    const topics = await invoke(handler, "GET", "/api/stream", { params: {}, query: "topics=inbox,approvals,approval_list,overview,notifications" }, { role: "viewer" })
    const topicsReader = topics.body!.getReader()
    let topicsText = ""
    while (!topicsText.includes("event: ready")) topicsText += new TextDecoder().decode((await topicsReader.read()).value)
    await topicsReader.cancel()
    expect(topicsText).toContain('"topics":["inbox","overview"]')
    const badTopic = await invoke(handler, "GET", "/api/stream", { params: {}, query: "topics=prices" }, { role: "viewer" })
    expect(badTopic.status).toBe(400)
    expect(((await badTopic.json()) as { meta?: { fields?: Record<string, string> } }).meta?.fields).toMatchObject({ "topics.0": "each topic is one of inbox, approvals, approval_list, overview, notifications" })
    const badMarket = await invoke(handler, "GET", "/api/stream", { params: {}, query: "markets=btc" }, { role: "viewer" })
    expect(badMarket.status).toBe(400)
    expect(((await badMarket.json()) as { meta?: { fields?: Record<string, string> } }).meta?.fields).toMatchObject({ "markets.0": "each market is like BTCUSD" })
    const badResume = await invoke(handler, "GET", "/api/stream", { params: {}, query: "last_event_id=yesterday" }, { role: "viewer" })
    expect(badResume.status).toBe(400)
    expect(((await badResume.json()) as { meta?: { fields?: Record<string, string> } }).meta?.fields).toMatchObject({ last_event_id: "is an event id from this stream" })
  })

  it("GET /api/notifications: a first poll announces nothing from before and answers a cursor; it refuses a since that is not a date-time naming it", async () => {
    const handler = (await import("@/app/api/notifications/route")).GET as unknown as Handler
    const ok = await invoke(handler, "GET", "/api/notifications", { params: {} }, { role: "trader" })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ events: [], cursor: expect.any(String) as string, unchecked: expect.any(Number) as number })
    const bad = await invoke(handler, "GET", "/api/notifications", { params: {}, query: "since=yesterday" }, { role: "trader" })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toHaveProperty("since")
  })

  it("GET /api/search finds a conversion by its id, says what it searched for an unknown one, and refuses a bad q naming it", async () => {
    const { route, handler } = (await routeHandlers()).find((h) => h.key === "GET /api/search")!
    const found = (await (await invoke(handler, "GET", route, { params: {}, query: `q=${encodeURIComponent(` ${conversionId} `)}` }, { role: "support" })).json()) as {
      matches: { kind: string; id: string; href: string }[]
    }
    expect(found.matches).toEqual([expect.objectContaining({ kind: "conversion", id: conversionId, href: `/conversions/${conversionId}` })])
    const none = (await (await invoke(handler, "GET", route, { params: {}, query: `q=${randomUUID()}` }, { role: "support" })).json()) as {
      matches: unknown[]
      sources: { source: string; state: string }[]
      partial: boolean
    }
    expect(none.matches).toEqual([])
    expect(none.sources.map((x) => x.source)).toEqual(["intent_log", "service_profiles", "service_conversions", "service_transfers", "service_executions"])
    for (const [q, rule] of [
      ["%20%20", "must not be empty"],
      [`${"x".repeat(256)}`, "at most 255 characters"],
      ["a%0Ab", "must not contain control characters (tabs, line breaks)"],
    ]) {
      const bad = await invoke(handler, "GET", route, { params: {}, query: `q=${q}` }, { role: "support" })
      expect(bad.status).toBe(400)
      expect(bad.headers.get("content-type")).toContain("application/problem+json")
      expect(await bad.json()).toMatchObject({ meta: { fields: { q: rule } } })
    }
  })

  it("GET /api/markets/{market}/history answers the range's points ending at the current mid, and refuses a bad range naming it", async () => {
    const handler = (await import("@/app/api/markets/[market]/history/route")).GET as unknown as Handler
    const ok = await invoke(handler, "GET", "/api/markets/[market]/history", { params: { market: "ETHUSD" }, query: "range=1h" }, { role: "viewer" })
    expect(ok.status).toBe(200)
    const body = (await ok.json()) as { items: { timestamp: string; average_price: string }[] }
    // 1 h at ONE_MINUTE: the whole minutes of the last hour, then the current mid.
    expect(body.items.length).toBeGreaterThanOrEqual(59)
    expect(body.items.length).toBeLessThanOrEqual(61)
    const bad = await invoke(handler, "GET", "/api/markets/[market]/history", { params: { market: "ETHUSD" }, query: "range=2h" }, { role: "viewer" })
    expect(bad.status).toBe(400)
    expect(bad.headers.get("content-type")).toMatch(/^application\/problem\+json/)
    expect(((await bad.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toHaveProperty("range")
  })

  it("GET /api/overview values every profile's holdings in USD, and shows unresolved intents to admins only", async () => {
    const handler = (await import("@/app/api/overview/route")).GET as unknown as Handler
    const asViewer = (await (await invoke(handler, "GET", "/api/overview", { params: {} }, { role: "viewer" })).json()) as {
      total_usd: string
      profiles: { total_usd: string }[]
      unresolved_intents: number | null
    }
    expect(asViewer.profiles.length).toBeGreaterThan(0)
    const sum = asViewer.profiles.reduce((a, p) => a.plus(toDecimal(p.total_usd)), toDecimal("0"))
    expect(sum.toFixed(2)).toBe(asViewer.total_usd)
    expect(toDecimal(asViewer.total_usd).gt(0)).toBe(true)
    expect(asViewer.unresolved_intents).toBeNull()
    const asAdmin = (await (await invoke(handler, "GET", "/api/overview", { params: {} }, { role: "admin" })).json()) as {
      unresolved_intents: number | null
    }
    expect(typeof asAdmin.unresolved_intents).toBe("number")
  })

  it("an unknown /api path is a 404 problem naming it, for a signed-in caller only", async () => {
    const { handler } = (await routeHandlers()).find((h) => h.key === "GET /api/[...path]")!
    const req = async (role?: Role) => {
      const headers = new Headers(role ? { cookie: await cookieOf(role) } : {})
      return handler(new NextRequest("http://localhost/api/nope/deeper", { headers }), { params: Promise.resolve({}) })
    }
    const signedOut = await req()
    expect(signedOut.status).toBe(401)
    const res = await req("viewer")
    expect(res.status).toBe(404)
    expect(res.headers.get("content-type")).toBe("application/problem+json")
    expect(await res.json()).toMatchObject({ status: 404, title: "Not Found", code: "not_found", detail: "The console's API has no GET /api/nope/deeper." })
  })
})

describe("write routes refuse bad bodies before anything reaches the service", () => {
  const refusals = async () => (await runtime.db.select({ n: count() }).from(consoleIntents).where(eq(consoleIntents.state, "REFUSED")))[0]?.n ?? 0
  const writeRoutes = [
    { key: "POST /api/profiles/[profileId]/quote-executions", schema: consoleQuoteExecutionCreateSchema },
    { key: "POST /api/conversions", schema: consoleConversionCreateSchema },
    { key: "POST /api/sandbox/deposit", schema: sandboxDepositRequestSchema },
    { key: "POST /api/sandbox/silent-movement", schema: silentMovementRequestSchema },
    { key: "POST /api/sandbox/lost-record", schema: lostRecordRequestSchema },
    { key: "POST /api/sandbox/history", schema: historyRequestSchema },
    { key: "PUT /api/sandbox/settings", schema: faultSettingsUpdateSchema },
  ]

  for (const { key, schema } of writeRoutes) {
    // 300 generated bodies through the handler: its own bound, as for the matrix.
    it(`${key}: any body the schema refuses is a 4xx problem naming fields, with no intent and no call`, { timeout: 180_000 }, async () => {
      const { route, handler } = (await routeHandlers()).find((h) => h.key === key)!
      const [method] = key.split(" ") as [Method]
      const spies = [
        vi.spyOn(runtime.upstream, "createQuoteExecution"),
        vi.spyOn(runtime.upstream, "createConversion"),
        vi.spyOn(runtime.upstream, "sandboxDeposit"),
        vi.spyOn(runtime.upstream, "putFaults"),
      ]
      const before = (await runtime.db.select({ intents: count() }).from(consoleIntents).where(ne(consoleIntents.state, "REFUSED")))[0]?.intents
      const amountish = fc.oneof(
        fc.constantFrom("", "-1", "0", "0.000000001", "1.234", "1e5", "abc", " ", "1.2.3", "12.345", "9".repeat(40) + ".999"),
        fc.string(),
        fc.integer(),
        fc.double(),
      )
      const bodyArb = fc.oneof(
        fc.anything(),
        fc.record(
          {
            quote_id: fc.oneof(fc.uuid(), fc.string(), fc.integer()),
            profile_id: fc.oneof(fc.constant(profileId), fc.string()),
            base_amount: amountish,
            quote_amount: amountish,
            amount: amountish,
            source_asset: fc.constantFrom("USD", "USDP", "PYUSD", "USDG", "EUR", "BTC", ""),
            target_asset: fc.constantFrom("USD", "USDP", "PYUSD", "USDG", "EUR", "BTC", ""),
            metadata: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.string({ maxLength: 120 }), fc.integer())), fc.anything()),
            ref_id: fc.oneof(fc.uuid(), fc.string({ maxLength: 200 })),
            asset: fc.constantFrom("USD", "BTC", "usd", "", "XXXXXXXXXXXX"),
            seed: fc.oneof(fc.integer(), fc.double(), fc.string()),
            settle_delay_ms: fc.oneof(fc.integer(), fc.double(), fc.string()),
            rate_limits: fc.oneof(fc.boolean(), fc.string()),
            rules: fc.oneof(
              fc.array(
                fc.record(
                  {
                    operation: fc.constantFrom("create_execution", "quotes", "cancel", "nope", ""),
                    fault: fc.constantFrom("latency", "error", "hang", "commit_then_fail", "explode"),
                    rate: fc.oneof(fc.double(), fc.integer(), fc.string()),
                    status: fc.oneof(fc.integer(), fc.constant("drop"), fc.string()),
                    latency_ms: fc.oneof(fc.integer(), fc.double()),
                  },
                  { requiredKeys: [] },
                ),
                { maxLength: 3 },
              ),
              fc.anything(),
            ),
            extra: fc.anything(),
          },
          { requiredKeys: [] },
        ),
      )
      const refusedBefore = await refusals()
      let refused = 0
      await fc.assert(
        fc.asyncProperty(bodyArb, async (body) => {
          // What the server receives is the JSON text: {"k": undefined} arrives as {}.
          const wire = JSON.stringify(body) ?? "null"
          fc.pre(!schema.safeParse(JSON.parse(wire)).success)
          refused++
          const res = await invoke(handler, method, route, { params: { profileId }, body }, { role: "admin", rawBody: wire })
          expect(res.status).toBeGreaterThanOrEqual(400)
          expect(res.status).toBeLessThan(500)
          expect(res.headers.get("content-type")).toBe("application/problem+json")
          const problem = (await res.json()) as { status: number; meta?: { fields?: Record<string, string> } }
          expect(problem.status).toBe(res.status)
          expect(Object.keys(problem.meta?.fields ?? {}).length, JSON.stringify(problem)).toBeGreaterThan(0)
        }),
        { numRuns: 300 },
      )
      const after = (await runtime.db.select({ intents: count() }).from(consoleIntents).where(ne(consoleIntents.state, "REFUSED")))[0]?.intents
      expect(after).toBe(before)
      // Each refused create is on the audit trail, whatever its body held.
      expect((await refusals()) - refusedBefore).toBe(key.includes("sandbox") ? 0 : refused)
      for (const spy of spies) {
        expect(spy).not.toHaveBeenCalled()
        spy.mockRestore()
      }
    })
  }

  it("a lone surrogate in any string field of an otherwise valid create is a 400 naming that field: never a 5xx, no intent, no call", async () => {
    const { route, handler } = (await routeHandlers()).find((h) => h.key === "POST /api/conversions")!
    const spy = vi.spyOn(runtime.upstream, "createConversion")
    const before = (await runtime.db.select({ intents: count() }).from(consoleIntents).where(ne(consoleIntents.state, "REFUSED")))[0]?.intents
    const lone = fc
      .tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff"), fc.string({ maxLength: 10 }))
      .map(([a, s, b]) => a + s + b)
    const where = fc.constantFrom("metadata value", "metadata key", "ref_id", "source_asset")
    await fc.assert(
      fc.asyncProperty(lone, where, async (text, place) => {
        const body: Record<string, unknown> = { profile_id: profileId, amount: "2.50", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() }
        if (place === "metadata value") body.metadata = { k: text }
        else if (place === "metadata key") body.metadata = { [text]: "v" }
        else body[place] = text
        const res = await invoke(handler, "POST", route, { params: {}, body }, { role: "trader" })
        expect(res.status).toBe(400)
        expect(res.headers.get("content-type")).toBe("application/problem+json")
        const fields = Object.keys(((await res.json()) as { meta: { fields: Record<string, string> } }).meta.fields)
        expect(fields).toHaveLength(1)
        expect(fields[0]).toMatch(place === "ref_id" ? /^ref_id$/ : place === "source_asset" ? /^source_asset$/ : /^metadata\./)
      }),
      { numRuns: 200 },
    )
    expect((await runtime.db.select({ intents: count() }).from(consoleIntents).where(ne(consoleIntents.state, "REFUSED")))[0]?.intents).toBe(before)
    expect(spy).not.toHaveBeenCalled()
    spy.mockRestore()
  })

  it("a policy with a limit under __proto__ is a 400 naming that field, and the saved policy stays as it was", async () => {
    const routes = await routeHandlers()
    const put = routes.find((h) => h.key === "PUT /api/policy")!
    const get = routes.find((h) => h.key === "GET /api/policy")!
    const before: unknown = await (await invoke(get.handler, "GET", get.route, { params: {} }, { role: "admin" })).json()
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    // Written by hand: JSON.stringify of an object literal would not keep a __proto__ key.
    const rawBody = JSON.stringify(DEFAULT_POLICY).replace('"per_order":{"USD":"50000.00"', '"per_order":{"__proto__":"1.00","USD":"50000.00"')
    expect(rawBody).toContain("__proto__")
    const res = await invoke(put.handler, "PUT", put.route, { params: {}, body: {} }, { role: "admin", rawBody })
    expect(res.status).toBe(400)
    expect(res.headers.get("content-type")).toBe("application/problem+json")
    expect(await res.json()).toMatchObject({
      code: "validation_failed",
      meta: { fields: { "role_limits.trader.per_order.__proto__": "is not an allowed field name" } },
    })
    expect(await (await invoke(get.handler, "GET", get.route, { params: {} }, { role: "admin" })).json()).toEqual(before)
  })

  it("a body that is not JSON is a 400 problem, and a non-JSON content type a 415", async () => {
    const { route, handler } = (await routeHandlers()).find((h) => h.key === "POST /api/conversions")!
    const res = await invoke(handler, "POST", route, { params: {}, body: {} }, { role: "trader", rawBody: "{not json" })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ meta: { fields: { body: "must be valid JSON" } } })
    const url = "http://localhost/api/conversions"
    const plain = await handler(
      new NextRequest(url, {
        method: "POST",
        headers: { cookie: await cookieOf("trader"), origin: "http://localhost", "content-type": "text/plain" },
        body: "x",
      }),
      { params: Promise.resolve({}) },
    )
    expect(plain.status).toBe(415)
    expect(await plain.json()).toMatchObject({ code: "unsupported_media_type" })
  })

  it("a create without a ref_id is refused (the console never invents one a retry could not repeat)", async () => {
    const handlers = await routeHandlers()
    const before = (await runtime.db.select({ intents: count() }).from(consoleIntents).where(ne(consoleIntents.state, "REFUSED")))[0]?.intents
    const cases = [
      { key: "POST /api/profiles/[profileId]/quote-executions", body: { quote_id: await buyQuoteId(), base_amount: "0.001" } },
      { key: "POST /api/conversions", body: { profile_id: profileId, amount: "2.50", source_asset: "USD", target_asset: "USDP" } },
    ]
    for (const { key, body } of cases) {
      const { route, handler } = handlers.find((h) => h.key === key)!
      const res = await invoke(handler, "POST", route, { params: { profileId }, body }, { role: "trader" })
      expect(res.status).toBe(400)
      expect(res.headers.get("content-type")).toBe("application/problem+json")
      expect(((await res.json()) as { meta?: { fields?: unknown } }).meta?.fields).toEqual({ ref_id: "is required" })
    }
    const after = (await runtime.db.select({ intents: count() }).from(consoleIntents).where(ne(consoleIntents.state, "REFUSED")))[0]?.intents
    expect(after).toBe(before)
  })
})
