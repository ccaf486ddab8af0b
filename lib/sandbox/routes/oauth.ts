import "server-only"
import { readBoundedText } from "@/lib/http/bounded-body"
import { OAuthError, presentedClientId } from "@/lib/sandbox/oauth"
import { type Middleware, type SandboxServices, type TokenClient, router } from "@/lib/sandbox/routes/context"

/** A client-credentials form is a few hundred bytes. */
const TOKEN_BODY_LIMIT = 8 * 1024

/** /sandbox/oauth2: the client credentials grant. */
export function oauthRoutes(s: SandboxServices, m: Middleware) {
  // POST /sandbox/oauth2/token - client credentials grant (RFC 6749 §4.4)
  return router().post(
    "/token",
    async (c, next) => {
      const type = c.req.header("content-type") ?? ""
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
        throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded")
      }
      // Anyone may call this: the body is never held past 8 KiB.
      const text = await readBoundedText(c.req.raw, TOKEN_BODY_LIMIT)
      const form = new URLSearchParams(text)
      const authorization = c.req.header("authorization")
      // Credentials first, so that only requests that prove to be the client spend its
      // rate limit: a caller without the secret spends the bucket of failed requests that
      // name that client id, never the client's own.
      const checked: TokenClient = await s.oauth.authenticateClient(form, authorization).then(
        (client) => ({ client }),
        (error: unknown) => ({ error }),
      )
      const key = "client" in checked ? checked.client.clientId : `unverified\u0000${presentedClientId(form, authorization) ?? ""}`
      await m.rateLimit(c, key)
      c.set("stored", false)
      c.set("form", form)
      c.set("tokenClient", checked)
      await next()
    },
    m.fault("token"),
    async (c) => {
      const checked = c.get("tokenClient")
      if ("error" in checked) throw checked.error
      const grant = await s.oauth.issue(checked.client, c.get("form"))
      return c.json(grant, 200, { "cache-control": "no-store", pragma: "no-cache" })
    },
  )
}
