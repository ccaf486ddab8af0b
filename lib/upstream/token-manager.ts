import "server-only"
import {
  UpstreamConfigError,
  UpstreamProblemError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream/errors"
import { oauthErrorSchema, tokenResponseSchema } from "@/lib/upstream/schemas"
import { exchange, parseJson, parseRetryAfter, type Runtime } from "@/lib/upstream/transport"

/** Refresh this long before expiry (or at half the lifetime of a shorter-lived token). */
export const TOKEN_REFRESH_MARGIN_MS = 60_000
/** A token this close to expiry is not reused when a refresh fails. */
const TOKEN_REUSE_FLOOR_MS = 5_000

export interface TokenManager {
  /** A bearer token granted every scope in `scopes`; cached per scope set, single-flight. */
  get: (scopes: readonly string[], op: string) => Promise<string>
  /** Drops `token` from the cache after a 401, unless a newer one already replaced it. */
  invalidate: (scopes: readonly string[], token: string) => void
  /** Blanks out the client secret and every token this manager holds. */
  redact: (text: string) => string
}

interface CachedToken {
  token: string
  expiresAt: number
  refreshAt: number
}

interface Credentials {
  tokenUrl: string
  clientId: string
  clientSecret: string
}

export function scopeKey(scopes: readonly string[]): string {
  return [...new Set(scopes)].sort().join(" ")
}

/**
 * OAuth 2 client credentials (RFC 6749 §4.4). The secret stays in this closure: it is
 * never a property of an object that could be logged or serialised.
 */
export function createTokenManager(credentials: Credentials, runtime: Omit<Runtime, "redact">): TokenManager {
  const cache = new Map<string, CachedToken>()
  const inFlight = new Map<string, Promise<CachedToken>>()
  const tokenUrl = new URL(credentials.tokenUrl)

  const redact = (text: string): string => {
    let out = credentials.clientSecret ? text.split(credentials.clientSecret).join("[redacted]") : text
    for (const { token } of cache.values()) out = out.split(token).join("[redacted]")
    return out
  }
  const fullRuntime: Runtime = { ...runtime, redact }

  async function request(scopes: string[], op: string): Promise<CachedToken> {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope: scopes.join(" "),
    })
    const result = await exchange(fullRuntime, {
      op,
      method: "POST",
      url: tokenUrl,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      bucket: "token",
      attempt: 1,
    })
    // Nothing reached the API yet, so every failure here is "rejected".
    const options = { outcome: "rejected" as const, operation: op }
    if (result.kind === "timeout") throw new UpstreamTimeoutError(runtime.timeoutMs, options)
    if (result.kind === "network") {
      throw new UpstreamUnavailableError("the token endpoint could not be reached", options)
    }
    const json = parseJson(result.body)
    if (result.status >= 200 && result.status < 300) {
      const parsed = tokenResponseSchema.safeParse(json)
      if (!parsed.success) {
        // Only field paths: the body holds the token.
        const fields = parsed.error.issues.map((i) => i.path.join(".") || "(body)").join(", ")
        throw new UpstreamResponseError(`the token endpoint answered an unexpected body (${fields})`, {
          ...options,
          status: result.status,
        })
      }
      const granted = parsed.data.scope === undefined ? scopes : parsed.data.scope.split(/\s+/).filter(Boolean)
      const missing = scopes.filter((s) => !granted.includes(s))
      if (missing.length > 0) {
        throw new UpstreamConfigError(`scope ${missing.join(", ")} not granted to the console's client`, options)
      }
      const now = runtime.now()
      const lifetime = parsed.data.expires_in * 1000
      return {
        token: parsed.data.access_token,
        expiresAt: now + lifetime,
        refreshAt: now + lifetime - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetime / 2),
      }
    }
    const oauthError = oauthErrorSchema.safeParse(json)
    const code = oauthError.success ? oauthError.data.error : undefined
    if (code === "invalid_client" || code === "unauthorized_client") {
      throw new UpstreamConfigError(`the service refused the console's client credentials (${code})`, options)
    }
    if (code === "invalid_scope") {
      throw new UpstreamConfigError(`scope ${scopes.join(" ")} not granted to the console's client (invalid_scope)`, options)
    }
    if (result.status === 429) {
      const retryAfterMs = parseRetryAfter(result.headers.get("retry-after"), runtime.now())
      if (retryAfterMs !== undefined) runtime.limiter.pauseUntil("token", runtime.now() + retryAfterMs)
      throw new UpstreamProblemError(
        { type: "about:blank", title: "Too Many Requests", status: 429, detail: "the token endpoint is rate limiting the console" },
        { ...options, retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000) },
      )
    }
    if (result.status >= 500) {
      throw new UpstreamUnavailableError(`the token endpoint answered ${result.status}`, { ...options, status: result.status })
    }
    if (result.status === 401) {
      throw new UpstreamConfigError("the service refused the console's client credentials", options)
    }
    throw new UpstreamConfigError(`the token request was refused (${code ?? `HTTP ${result.status}`})`, options)
  }

  async function get(scopes: readonly string[], op: string): Promise<string> {
    const key = scopeKey(scopes)
    const cached = cache.get(key)
    const now = runtime.now()
    if (cached && now < cached.refreshAt) return cached.token

    let pending = inFlight.get(key)
    if (!pending) {
      pending = request(key === "" ? [] : key.split(" "), op).finally(() => inFlight.delete(key))
      inFlight.set(key, pending)
    }
    try {
      const fresh = await pending
      cache.set(key, fresh)
      return fresh.token
    } catch (error) {
      // A refresh that fails for a passing reason leaves the old token usable till near its end.
      const stillGood = cached !== undefined && runtime.now() < cached.expiresAt - TOKEN_REUSE_FLOOR_MS
      const passing = error instanceof UpstreamUnavailableError || error instanceof UpstreamTimeoutError
      if (stillGood && passing && cache.get(key) === cached) {
        runtime.log({ event: "token_reused", op, scopes: key })
        return cached.token
      }
      throw error
    }
  }

  function invalidate(scopes: readonly string[], token: string): void {
    const key = scopeKey(scopes)
    if (cache.get(key)?.token === token) cache.delete(key)
  }

  return { get, invalidate, redact }
}
