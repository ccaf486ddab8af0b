import "server-only"
import { env } from "@/lib/env"
import { log } from "@/lib/log"

/** next-auth's id for the single sign-on provider; its callback is /api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc"

export function oidcDiscoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`
}

const DISCOVERY_TTL_MS = 5 * 60_000
const DISCOVERY_TIMEOUT_MS = 5000
const globalForOidc = globalThis as unknown as { __oidcEndSession?: { issuer: string; endpoint: string | null; at: number } }

/** The provider's end_session_endpoint, from its discovery document (kept five minutes); null when it has none. */
export async function endSessionEndpoint(issuer: string, now = Date.now()): Promise<string | null> {
  const hit = globalForOidc.__oidcEndSession
  if (hit && hit.issuer === issuer && now - hit.at < DISCOVERY_TTL_MS) return hit.endpoint
  try {
    const res = await fetch(oidcDiscoveryUrl(issuer), { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), headers: { accept: "application/json" } })
    if (!res.ok) throw new Error(`discovery answered ${res.status}`)
    const doc = (await res.json()) as { end_session_endpoint?: unknown }
    const endpoint = typeof doc.end_session_endpoint === "string" && URL.canParse(doc.end_session_endpoint) ? doc.end_session_endpoint : null
    globalForOidc.__oidcEndSession = { issuer, endpoint, at: now }
    return endpoint
  } catch (error) {
    log.warn("auth.oidc_discovery_failed", { issuer, error: error instanceof Error ? error.message : String(error) })
    return null
  }
}

/**
 * Where the browser goes after the console's own sign-out: the provider's end-session
 * endpoint (OpenID Connect RP-Initiated Logout) with the ID token as hint and the sign-in
 * page to come back to. The provider must list that page as a post-logout redirect URI.
 */
export function endSessionRedirect(endpoint: string, input: { idToken: string; clientId: string; signInUrl: string }): string {
  const url = new URL(endpoint)
  url.searchParams.set("id_token_hint", input.idToken)
  url.searchParams.set("client_id", input.clientId)
  url.searchParams.set("post_logout_redirect_uri", input.signInUrl)
  return url.toString()
}

/**
 * next-auth's sign-out answer, sent on to the provider's sign-out when the session came
 * from single sign-on and the provider advertises an end_session_endpoint. The console's
 * session is already over (next-auth's signOut event) and its cookie cleared (the answer's
 * Set-Cookie headers are kept); only where the browser goes next changes. The client's
 * JSON answer (`{ url }`) and a plain form post's redirect are both handled.
 */
export async function withProviderSignOut(response: Response, idToken: unknown, baseUrl: string): Promise<Response> {
  const oidc = env().oidc
  if (!oidc || typeof idToken !== "string" || idToken === "") return response
  const endpoint = await endSessionEndpoint(oidc.issuer)
  if (!endpoint) return response
  const target = endSessionRedirect(endpoint, { idToken, clientId: oidc.clientId, signInUrl: new URL("/sign-in", baseUrl).toString() })
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  headers.set("cache-control", "no-store")
  if ((headers.get("content-type") ?? "").includes("json")) {
    const body = (await response.clone().json().catch(() => null)) as { url?: unknown } | null
    if (!body || typeof body.url !== "string") return response
    return new Response(JSON.stringify({ ...body, url: target }), { status: response.status, headers })
  }
  if (response.status >= 300 && response.status < 400 && headers.has("location")) {
    headers.set("location", target)
    return new Response(null, { status: response.status, headers })
  }
  return response
}
