import "server-only"
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { and, eq, lt } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { sandboxClients, sandboxTokens } from "@/lib/db/schema"
import { genericProblem } from "@/lib/sandbox/problems"

// ---------------------------------------------------------------- secrets

const SCRYPT = { N: 16_384, r: 8, p: 1, keylen: 32 } as const

function scryptAsync(secret: string, salt: Buffer, keylen: number, params: { N: number; r: number; p: number }) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, salt, keylen, { ...params, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

/** `scrypt$N$r$p$salt$hash`, base64url parts. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(secret, salt, SCRYPT.keylen, SCRYPT)
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$")
}

/** Constant-time check of a secret against a stored hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split("$")
  if (parts.length !== 6 || parts[0] !== "scrypt") return false
  const [, n, r, p, saltText, keyText] = parts
  const expected = Buffer.from(keyText ?? "", "base64url")
  const key = await scryptAsync(secret, Buffer.from(saltText ?? "", "base64url"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  })
  return expected.length > 0 && key.length === expected.length && timingSafeEqual(key, expected)
}

// A fixed hash to verify against when the client id is unknown, so both cases cost the same.
let decoyHash: Promise<string> | undefined

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex")
}

// ---------------------------------------------------------------- token endpoint

/** An RFC 6749 §5.2 error answer. */
export class OAuthError extends Error {
  override name = "OAuthError"
  constructor(
    readonly error: "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type" | "invalid_scope",
    readonly description: string,
    readonly status: 400 | 401 = 400,
  ) {
    super(description)
  }

  toResponse(): Response {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "cache-control": "no-store",
      pragma: "no-cache",
    }
    if (this.status === 401) headers["www-authenticate"] = 'Basic realm="sandbox", charset="UTF-8"'
    return new Response(JSON.stringify({ error: this.error, error_description: this.description }), {
      status: this.status,
      headers,
    })
  }
}

interface TokenGrant {
  access_token: string
  expires_in: number
  scope: string
  token_type: "bearer"
}

export interface Principal {
  clientId: string
  scopes: readonly string[]
}

function decodeFormComponent(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "))
  } catch {
    return value
  }
}

/** A client whose credentials checked out. */
export interface SandboxClient {
  clientId: string
  scopes: readonly string[]
}

/** The client id a token request names, checked or not (the rate-limit key of failed token requests). */
export function presentedClientId(form: URLSearchParams, authorization: string | undefined): string | undefined {
  const basic = parseBasic(authorization)
  return basic?.clientId ?? form.get("client_id") ?? undefined
}

function parseBasic(authorization: string | undefined): { clientId: string; clientSecret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(authorization ?? "")
  if (!match?.[1]) return null
  const decoded = Buffer.from(match[1], "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 0) return null
  return { clientId: decodeFormComponent(decoded.slice(0, colon)), clientSecret: decodeFormComponent(decoded.slice(colon + 1)) }
}

export class OAuthService {
  private readonly cache = new Map<string, Principal & { expiresAt: number }>()

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly tokenTtlS: number,
  ) {}

  /** POST /oauth2/token with `grant_type=client_credentials`. */
  async grant(form: URLSearchParams, authorization: string | undefined): Promise<TokenGrant> {
    return this.issue(await this.authenticateClient(form, authorization), form)
  }

  /**
   * The first half of a grant: the request's shape and the client's credentials. Throws the
   * RFC 6749 error a client gets for a malformed request or wrong credentials.
   */
  async authenticateClient(form: URLSearchParams, authorization: string | undefined): Promise<SandboxClient> {
    for (const key of new Set(form.keys())) {
      if (form.getAll(key).length > 1) throw new OAuthError("invalid_request", `parameter ${key} given more than once`)
    }
    const grantType = form.get("grant_type")
    if (!grantType) throw new OAuthError("invalid_request", "grant_type is required")
    if (grantType !== "client_credentials") {
      throw new OAuthError("unsupported_grant_type", "only grant_type=client_credentials is supported")
    }

    const basic = parseBasic(authorization)
    if (authorization !== undefined && /^Basic\b/i.test(authorization) && !basic) {
      throw new OAuthError("invalid_client", "malformed Basic credentials", 401)
    }
    if (basic && (form.has("client_secret") || form.has("client_id"))) {
      if (form.has("client_secret") || form.get("client_id") !== basic.clientId) {
        throw new OAuthError("invalid_request", "use one way to send client credentials (Basic or the body), not both")
      }
    }
    const clientId = basic?.clientId ?? form.get("client_id")
    const clientSecret = basic?.clientSecret ?? form.get("client_secret")
    if (!clientId || !clientSecret) throw new OAuthError("invalid_client", "client authentication failed", 401)

    const [client] = await this.db.select().from(sandboxClients).where(eq(sandboxClients.clientId, clientId))
    decoyHash ??= hashSecret(randomBytes(16).toString("hex"))
    const ok = await verifySecret(clientSecret, client?.secretHash ?? (await decoyHash))
    if (!client || !ok) throw new OAuthError("invalid_client", "client authentication failed", 401)
    return { clientId: client.clientId, scopes: client.scopes }
  }

  /** The second half of a grant: the scopes asked for (all the client's when none), and a new token. */
  async issue(client: SandboxClient, form: URLSearchParams): Promise<TokenGrant> {
    const requested = (form.get("scope") ?? "").split(" ").filter(Boolean)
    const unknown = requested.filter((s) => !client.scopes.includes(s))
    if (unknown.length > 0) {
      throw new OAuthError("invalid_scope", `scope not allowed for this client: ${unknown.join(" ")}`)
    }
    const scopes = requested.length > 0 ? [...new Set(requested)] : [...client.scopes]

    const token = `sbx_at_${randomBytes(32).toString("base64url")}`
    const now = this.now()
    const expiresAt = new Date(now.getTime() + this.tokenTtlS * 1000)
    await this.db
      .insert(sandboxTokens)
      .values({ tokenHash: sha256(token), clientId: client.clientId, scopes, createdAt: now, expiresAt })
    // Expired tokens are useless; keep the table small (a day's grace for clock skew).
    await this.db.delete(sandboxTokens).where(lt(sandboxTokens.expiresAt, new Date(now.getTime() - 86_400_000)))
    return { access_token: token, expires_in: this.tokenTtlS, scope: scopes.join(" "), token_type: "bearer" }
  }

  /** The caller behind `Authorization: Bearer …`, or a 401 problem. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const unauthorized = (detail: string, error?: string) =>
      genericProblem(401, detail, undefined, {
        "www-authenticate": error ? `Bearer realm="sandbox", error="${error}"` : 'Bearer realm="sandbox"',
      })
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
    if (!match?.[1]) throw unauthorized("missing bearer token")
    const hash = sha256(match[1])
    const nowMs = this.now().getTime()
    let principal = this.cache.get(hash)
    if (!principal) {
      const [row] = await this.db
        .select({ clientId: sandboxTokens.clientId, scopes: sandboxTokens.scopes, expiresAt: sandboxTokens.expiresAt })
        .from(sandboxTokens)
        .where(and(eq(sandboxTokens.tokenHash, hash)))
      if (!row) throw unauthorized("invalid access token", "invalid_token")
      principal = { clientId: row.clientId, scopes: row.scopes, expiresAt: row.expiresAt.getTime() }
      if (this.cache.size > 10_000) this.cache.clear()
      this.cache.set(hash, principal)
    }
    if (principal.expiresAt <= nowMs) throw unauthorized("access token expired", "invalid_token")
    return { clientId: principal.clientId, scopes: principal.scopes }
  }
}

/** 403 unless the principal holds one of `required`. */
export function requireScope(principal: Principal, required: readonly string[]): void {
  if (required.some((s) => principal.scopes.includes(s))) return
  throw genericProblem(
    403,
    `insufficient scopes: found [${principal.scopes.join(" ")}], required one of [${required.join(" ")}]`,
  )
}
