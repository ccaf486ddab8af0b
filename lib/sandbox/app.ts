import "server-only"
import { Hono, type MiddlewareHandler } from "hono"
import { BodyTooLarge } from "@/lib/http/bounded-body"
import { HttpProblem, problemResponse } from "@/lib/problem"
import { genericProblem } from "@/lib/sandbox/problems"
import { SANDBOX_ADMIN_SCOPE } from "@/lib/schemas/scopes"
import { OAuthError } from "@/lib/sandbox/oauth"
import { adminRoutes } from "@/lib/sandbox/routes/admin"
import { type SandboxEnv, type SandboxServices, middleware } from "@/lib/sandbox/routes/context"
import { conversionRoutes } from "@/lib/sandbox/routes/conversions"
import { depositRoutes, fiatDepositRoutes } from "@/lib/sandbox/routes/deposits"
import { eventRoutes } from "@/lib/sandbox/routes/events"
import { transferRoutes } from "@/lib/sandbox/routes/transfers"
import { executionRoutes } from "@/lib/sandbox/routes/executions"
import { PUBLIC_MARKET_PATHS, marketRoutes } from "@/lib/sandbox/routes/markets"
import { oauthRoutes } from "@/lib/sandbox/routes/oauth"
import { orchestrationRoutes } from "@/lib/sandbox/routes/orchestrations"
import { profileRoutes } from "@/lib/sandbox/routes/profiles"
import { quoteRoutes } from "@/lib/sandbox/routes/quotes"

export type { AfterCommit, SandboxServices } from "@/lib/sandbox/routes/context"

/**
 * The sandbox as a Hono app: `/sandbox/oauth2/token`, `/sandbox/v2/…`, `/sandbox/admin/…`,
 * one router per resource (lib/sandbox/routes/), errors answered as problem+json here.
 */
export function createSandboxApp(s: SandboxServices): Hono<SandboxEnv> {
  const app = new Hono<SandboxEnv>().basePath("/sandbox")
  const m = middleware(s)

  app.onError((error, c) => {
    if (error instanceof HttpProblem) return problemResponse(error)
    if (error instanceof OAuthError) return error.toResponse()
    if (error instanceof BodyTooLarge) return problemResponse(genericProblem(413, error.message))
    if (c.req.raw.signal.aborted || s.lifetime.aborted) return problemResponse(genericProblem(503, "the request was abandoned"))
    s.log("sandbox.unexpected_error", {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      error: (error instanceof Error ? error.message : "unknown error").slice(0, 300),
    })
    return problemResponse(genericProblem(500, "unexpected error in the sandbox"))
  })
  app.notFound((c) => problemResponse(genericProblem(404, `no route for ${c.req.method} ${new URL(c.req.url).pathname}`)))

  app.use("*", async (_c, next) => {
    await s.ready()
    await next()
  })
  // The market data the service serves without a token (ticker, prices, markets); everything else needs one.
  const authenticated = m.authenticated({ rateLimited: true })
  const v2: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const path = new URL(c.req.url).pathname.slice("/sandbox/v2".length)
    if (PUBLIC_MARKET_PATHS.some((re) => re.test(path))) return m.anonymous(c, next)
    return authenticated(c, next)
  }
  app.use("/v2/*", v2)
  // Never rate limited: the switch that turns limits and faults off must always answer.
  app.use("/admin/*", m.authenticated({ rateLimited: false }), m.scope(SANDBOX_ADMIN_SCOPE))

  app.route("/oauth2", oauthRoutes(s, m))
  app.route("/v2/quotes", quoteRoutes(s, m))
  app.route("/v2/profiles/:profileId/quote-executions", executionRoutes(s, m))
  app.route("/v2/profiles", profileRoutes(s, m))
  app.route("/v2/conversion/stablecoins", conversionRoutes(s, m))
  app.route("/v2/orchestration/orchestrations", orchestrationRoutes(s, m))
  app.route("/v2/sandbox/profiles/:profileId/deposit", depositRoutes(s, m))
  app.route("/v2/sandbox/fiat-deposits", fiatDepositRoutes(s, m))
  app.route("/v2/events", eventRoutes(s, m))
  app.route("/v2/transfer/transfers", transferRoutes(s, m))
  app.route("/v2", marketRoutes(s, m))
  app.route("/admin", adminRoutes(s))
  return app
}
