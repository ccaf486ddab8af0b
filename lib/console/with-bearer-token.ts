import "server-only"
import { createHash, randomUUID, timingSafeEqual } from "node:crypto"
import type { NextRequest } from "next/server"
import { errorResponse, measured } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { notFound, problemResponse, unauthenticated } from "@/lib/problem"

/** Equal secrets, compared in constant time (hashes first, so their lengths do not leak either). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest()
  const b = createHash("sha256").update(expected).digest()
  return timingSafeEqual(a, b)
}

type MachineHandler = (ctx: { req: NextRequest; requestId: string }) => Promise<Response>
type MachineRoute = (req: NextRequest, route: { params: Promise<Record<string, never>> }) => Promise<Response>

/**
 * What both machine wrappers share: a request id, `gate` (the refusal, or null to go on),
 * then the handler with the id and no-store on its answer; any error as problem+json.
 */
function machineRoute(gate: (req: NextRequest, requestId: string, headers: Record<string, string>) => Response | null, handler: MachineHandler): MachineRoute {
  return measured(async (req) => {
    const requestId = randomUUID()
    const headers = { "x-request-id": requestId }
    try {
      const refused = gate(req, requestId, headers)
      if (refused) return refused
      const response = await handler({ req, requestId })
      response.headers.set("x-request-id", requestId)
      if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store")
      return response
    } catch (error) {
      return errorResponse(error, requestId, { req, staff: null })
    }
  })
}

/**
 * The wrapper of routes read by machines rather than staff (Prometheus): no session, a
 * bearer token from configuration instead. A route whose token is not configured does not
 * exist (404); a missing or wrong token is a 401. Every answer, errors included, is
 * counted like any console request, and errors are application/problem+json.
 */
export function withBearerToken(expectedToken: () => string | undefined, handler: MachineHandler): MachineRoute {
  return machineRoute((req, requestId, headers) => {
    const expected = expectedToken()
    if (!expected) return problemResponse(notFound("There is nothing here."), headers)
    const given = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]
    if (given && sameSecret(given, expected)) return null
    log.warn("authz.denied", { requestId, who: "bearer", what: `${req.method} ${req.nextUrl.pathname}`, why: given ? "wrong token" : "no bearer token", status: 401 })
    return problemResponse(unauthenticated("A valid bearer token is required."), { ...headers, "www-authenticate": 'Bearer realm="console"' })
  }, handler)
}

export interface ApiKeyConfig {
  apiKey: string
  /** Lower-case header name the key comes in. */
  header: string
}

/**
 * The wrapper of routes a machine calls with an API key in a header (the service's
 * webhook): no session. Unconfigured: 404. A missing or wrong key: 401, compared in
 * constant time, logged (never the key), and the handler never runs, so nothing is
 * recorded. `onRefused` counts refusals (metrics) without touching the database.
 */
export function withApiKey(
  config: () => ApiKeyConfig | undefined,
  handler: MachineHandler,
  hooks: { onOff?: () => void; onRefused?: () => void } = {},
): MachineRoute {
  return machineRoute((req, requestId, headers) => {
    const expected = config()
    if (!expected) {
      hooks.onOff?.()
      return problemResponse(notFound("There is nothing here."), headers)
    }
    const given = req.headers.get(expected.header)
    if (given && sameSecret(given, expected.apiKey)) return null
    hooks.onRefused?.()
    log.warn("authz.denied", { requestId, who: "api-key", what: `${req.method} ${req.nextUrl.pathname}`, why: given ? "wrong key" : "no key", status: 401 })
    return problemResponse(unauthenticated(`A valid API key is required in the ${expected.header} header.`), headers)
  }, handler)
}
