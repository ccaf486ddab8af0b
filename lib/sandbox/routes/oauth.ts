import "server-only"
import { readBoundedBody } from "@/lib/http/bounded-body"
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
      const form = await readTokenForm(c.req.raw)
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

/**
 * The token request's form. The service takes it form-encoded or as multipart/form-data
 * (its docs use `curl -F`); either way only text fields count.
 */
async function readTokenForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? ""
  const urlEncoded = /^application\/x-www-form-urlencoded\b/i.test(type)
  const multipart = /^multipart\/form-data\b/i.test(type)
  if (!urlEncoded && !multipart) {
    throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded or multipart/form-data")
  }
  // Anyone may call this: the body is never held past 8 KiB.
  const body = await readBoundedBody(request, TOKEN_BODY_LIMIT)
  if (urlEncoded) return new URLSearchParams(new TextDecoder().decode(body))
  let parts: FormData
  try {
    parts = await new Response(body, { headers: { "content-type": type } }).formData()
  } catch {
    throw new OAuthError("invalid_request", "the multipart/form-data body could not be read")
  }
  const form = new URLSearchParams()
  for (const [name, value] of parts) {
    if (typeof value !== "string") throw new OAuthError("invalid_request", `${name} must be a text field, not a file`)
    form.append(name, value)
  }
  return form
}
