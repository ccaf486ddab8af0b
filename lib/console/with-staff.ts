import "server-only"
import { randomUUID } from "node:crypto"
import type { NextRequest } from "next/server"
import { ZodError } from "zod"
import { FOREIGN_HOST_DETAIL, foreignHostReason } from "@/lib/auth/host"
import { roleAtLeast, type Role, type Staff } from "@/lib/auth/roles"
import { staffFromRequest } from "@/lib/auth/session"
import { shuttingDown, trackWrite } from "@/lib/console/draining"
import { CONSOLE_BODY_LIMIT, queryObject } from "@/lib/console/http"
import { type ConsoleRuntime, consoleRuntime } from "@/lib/console/runtime"
import { withDatabaseDeadline } from "@/lib/db/deadline"
import { DATABASE_RETRY_AFTER_S, databaseErrorCode, isDatabaseUnavailable } from "@/lib/db/unavailable"
import { env } from "@/lib/env"
import { BodyTooLarge, checkDeclaredLength } from "@/lib/http/bounded-body"
import { errorKind, log } from "@/lib/log"
import { recordRequest, routePattern } from "@/lib/metrics"
import {
  HttpProblem,
  bodyTooLarge,
  databaseUnavailable,
  forbiddenHost,
  forbiddenOrigin,
  internalError,
  problemResponse,
  roleRequired,
  shuttingDown as shuttingDownProblem,
  unauthenticated,
  validationFailed,
} from "@/lib/problem"
import { PROBLEM_CONTENT_TYPE, type Problem } from "@/lib/schemas/problem"
import { annotate, inSpan } from "@/lib/tracing"
import { isUpstreamError, upstreamErrorToProblem } from "@/lib/upstream"

export interface StaffContext<P> {
  req: NextRequest
  params: P
  /** The query string as an object (a repeated key keeps its last value). */
  query: Record<string, string>
  staff: Staff
  requestId: string
  /** The process's database, service client, quote cache and sandbox. */
  runtime: ConsoleRuntime
}

type RouteParams = Record<string, string | string[] | undefined>

/** `{"base_amount": "at most 8 decimals", "metadata.k": "…"}`: each field and its rule. */
export function fieldErrors(error: ZodError): Record<string, string> {
  // No prototype: a client's key named `valueOf` or `constructor` must not read as already set.
  const fields = Object.create(null) as Record<string, string>
  for (const issue of error.issues) {
    const prefix = issue.path.map(String).join(".")
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) fields[prefix ? `${prefix}.${key}` : key] ??= "is not a known field"
      continue
    }
    fields[prefix || "body"] ??= issue.message
  }
  return fields
}

export function validationProblem(error: ZodError): Problem {
  const fields = fieldErrors(error)
  const detail = Object.entries(fields)
    .map(([field, message]) => `${field}: ${message}`)
    .join("; ")
  return validationFailed(fields, detail).problem
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/** The console's own origin, as the browser sees it. */
function siteOrigin(req: NextRequest): string {
  const configured = env().nextAuthUrl
  if (configured) return new URL(configured).origin
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? req.nextUrl.host
  const proto = req.headers.get("x-forwarded-proto") ?? req.nextUrl.protocol.replace(/:$/, "")
  return `${proto}://${host}`
}

/** A write must come from the console's own pages: Origin, else Sec-Fetch-Site, must say so. */
function crossSiteReason(req: NextRequest): string | null {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return null
  const origin = req.headers.get("origin")
  if (origin !== null) return origin === siteOrigin(req) ? null : `origin ${origin.slice(0, 100)} is not this site`
  const fetchSite = req.headers.get("sec-fetch-site")
  if (fetchSite === "same-origin") return null
  return fetchSite ? `sec-fetch-site is ${fetchSite.slice(0, 20)}` : "no Origin or Sec-Fetch-Site header"
}

function deny(problem: HttpProblem, ctx: { req: NextRequest; requestId: string; who: string; why: string }): Response {
  log.warn("authz.denied", {
    requestId: ctx.requestId,
    who: ctx.who,
    what: `${ctx.req.method} ${ctx.req.nextUrl.pathname}`,
    why: ctx.why,
    status: problem.problem.status,
  })
  return problemResponse(problem, { "x-request-id": ctx.requestId })
}

/**
 * The one wrapper every console route handler goes through: session → role → Origin
 * check for writes → the handler, handed the runtime and the parsed query; its errors
 * become application/problem+json.
 */
export function withStaff<P extends RouteParams = Record<string, never>>(
  minimumRole: Role,
  handler: (ctx: StaffContext<P>) => Promise<Response>,
): (req: NextRequest, route: { params: Promise<P> }) => Promise<Response> {
  return measured((req, route) =>
    // A write's database work before it sends anything shares one deadline (lib/db/deadline.ts):
    // its session check and its admission together fail fast, not one full wait each.
    SAFE_METHODS.has(req.method) ? staffRoute(req, route) : withDatabaseDeadline(env().databaseLimits.transactionTimeoutMs, () => staffRoute(req, route)),
  )
  async function staffRoute(req: NextRequest, route: { params: Promise<P> }): Promise<Response> {
    const requestId = randomUUID()
    let staff: Staff | null = null
    try {
      const foreign = foreignHostReason(req.headers)
      if (foreign) return deny(forbiddenHost(FOREIGN_HOST_DETAIL), { req, requestId, who: "anonymous", why: foreign })
      // Refused before anything is read, signed in or not.
      checkDeclaredLength(req.headers, CONSOLE_BODY_LIMIT)
      staff = await staffFromRequest(req)
      if (!staff) {
        return deny(unauthenticated("Sign in to use the console."), { req, requestId, who: "anonymous", why: "no valid session" })
      }
      annotate({ "console.role": staff.role })
      if (!roleAtLeast(staff.role, minimumRole)) {
        return deny(roleRequired(minimumRole, staff.role), {
          req,
          requestId,
          who: staff.email,
          why: `role ${staff.role} below ${minimumRole}`,
        })
      }
      const crossSite = crossSiteReason(req)
      if (crossSite) {
        return deny(forbiddenOrigin("Cross-site requests are refused."), { req, requestId, who: staff.email, why: crossSite })
      }
      const write = !SAFE_METHODS.has(req.method)
      // Shutting down: a write not yet taken is refused before anything is done, so its
      // caller sends it (same ref_id) to another instance; one taken is finished first.
      if (write && shuttingDown()) return problemResponse(shuttingDownProblem(1), { "x-request-id": requestId, connection: "close" })
      const handled = (async () => {
        const runtime = await consoleRuntime()
        return handler({ req, params: await route.params, query: queryObject(req), staff, requestId, runtime })
      })()
      const response = await (write ? trackWrite(handled) : handled)
      response.headers.set("x-request-id", requestId)
      if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store")
      return response
    } catch (error) {
      return errorResponse(error, requestId, { req, staff })
    }
  }
}

/** A route handler whose answers are counted by route, method and status, with their duration. */
export function measured<P extends RouteParams>(
  handler: (req: NextRequest, route: { params: Promise<P> }) => Promise<Response>,
): (req: NextRequest, route: { params: Promise<P> }) => Promise<Response> {
  return async (req, route) => {
    const started = performance.now()
    const params: RouteParams = (await Promise.resolve(route?.params).catch(() => undefined)) ?? {}
    const pattern = routePattern(req.nextUrl.pathname, params)
    return inSpan(`console ${req.method} ${pattern}`, { "http.route": pattern, "http.request.method": req.method }, async (span) => {
      const response = await handler(req, route)
      recordRequest(pattern, req.method, response.status, (performance.now() - started) / 1000)
      span.setAttribute("http.response.status_code", response.status)
      if (span.isRecording()) {
        // The trace id beside the request id, so a report of either finds the other.
        response.headers.set("x-trace-id", span.spanContext().traceId)
        if (response.headers.get("content-type") === PROBLEM_CONTENT_TYPE) {
          const body = (await response.clone().json().catch(() => null)) as { code?: unknown } | null
          if (typeof body?.code === "string") span.setAttribute("console.problem_code", body.code)
        }
      }
      return response
    })
  }
}

export function errorResponse(
  error: unknown,
  requestId: string,
  ctx: { req: NextRequest; staff: Staff | null },
): Response {
  const headers = { "x-request-id": requestId }
  if (error instanceof HttpProblem) return problemResponse(error, headers)
  if (error instanceof BodyTooLarge) return problemResponse(bodyTooLarge(error.message), headers)
  if (error instanceof ZodError) return problemResponse(validationProblem(error), headers)
  if (isUpstreamError(error)) {
    const answer = upstreamErrorToProblem(error)
    if (answer.problem.status >= 500 && ctx.req.signal.aborted) {
      // The client went away mid-call: nothing failed on the console's side.
      log.info("request.aborted", { requestId, who: ctx.staff?.email ?? "anonymous", what: `${ctx.req.method} ${ctx.req.nextUrl.pathname}` })
    } else if (answer.problem.status >= 500) {
      log.warn("upstream.failed", { requestId, what: `${ctx.req.method} ${ctx.req.nextUrl.pathname}`, error: error.name, status: answer.problem.status })
    }
    return problemResponse(answer.problem, { ...headers, ...answer.headers })
  }
  if (isDatabaseUnavailable(error)) {
    log.warn("database.unavailable", {
      requestId,
      what: `${ctx.req.method} ${ctx.req.nextUrl.pathname}`,
      error: errorKind(error),
      code: databaseErrorCode(error),
    })
    return problemResponse(databaseUnavailable(DATABASE_RETRY_AFTER_S), headers)
  }
  if (ctx.req.signal.aborted) {
    // The client went away: nothing failed on the console's side.
    log.info("request.aborted", { requestId, who: ctx.staff?.email ?? "anonymous", what: `${ctx.req.method} ${ctx.req.nextUrl.pathname}` })
  } else log.error("request.failed", {
    requestId,
    who: ctx.staff?.email ?? "anonymous",
    what: `${ctx.req.method} ${ctx.req.nextUrl.pathname}`,
    error: error instanceof Error ? `${error.name}: ${error.message}` : "non-error thrown",
  })
  return problemResponse(internalError(requestId), headers)
}

/**
 * The few routes used signed out (accepting an invitation, a passkey sign-in's options):
 * the same Host, Origin and body-size checks and problem answers as withStaff, no session.
 * Whatever such a route allows rests on the secret it is given (an invitation token, a
 * signed assertion), never on who is asking.
 */
export function withSignedOut(handler: (ctx: { req: NextRequest; requestId: string; runtime: ConsoleRuntime }) => Promise<Response>): (req: NextRequest, route: { params: Promise<Record<string, never>> }) => Promise<Response> {
  return measured(async (req) => {
    const requestId = randomUUID()
    try {
      const foreign = foreignHostReason(req.headers)
      if (foreign) return deny(forbiddenHost(FOREIGN_HOST_DETAIL), { req, requestId, who: "anonymous", why: foreign })
      checkDeclaredLength(req.headers, CONSOLE_BODY_LIMIT)
      const crossSite = crossSiteReason(req)
      if (crossSite) return deny(forbiddenOrigin("Cross-site requests are refused."), { req, requestId, who: "anonymous", why: crossSite })
      if (shuttingDown()) return problemResponse(shuttingDownProblem(1), { "x-request-id": requestId, connection: "close" })
      const runtime = await consoleRuntime()
      const response = await trackWrite(handler({ req, requestId, runtime }))
      response.headers.set("x-request-id", requestId)
      response.headers.set("cache-control", "no-store")
      return response
    } catch (error) {
      return errorResponse(error, requestId, { req, staff: null })
    }
  })
}
