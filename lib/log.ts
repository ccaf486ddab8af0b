import "server-only"
import { withoutEmails } from "@/lib/auth/staff-ref"
import { env } from "@/lib/env"
import { activeTraceId } from "@/lib/tracing"

type Level = "debug" | "info" | "warn" | "error"
const ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

/** Keys whose values never reach a log line, at any depth. */
const SECRET_KEY = /secret|token|password|passwd|authorization|cookie|credential|api[-_]?key|session/i
const REDACTED = "[redacted]"

/**
 * What a log line may hold of `value`: secrets redacted (`redact`), and every email, staff
 * or not, replaced by its staff reference (`staffRef`: stable, not reversible), whatever
 * field or message it is in.
 */
export function loggable(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]"
  if (typeof value === "string") return withoutEmails(value)
  if (Array.isArray(value)) return value.map((v) => loggable(v, depth + 1))
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [withoutEmails(k), loggable(v, depth + 1)]))
  }
  return value
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]"
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      out[key] = SECRET_KEY.test(key) ? REDACTED : redact(v, depth + 1)
    }
    return out
  }
  if (typeof value === "string") {
    // Bearer tokens, basic credentials, passwords in URLs (a database URL inside a driver's
    // error message) and secret-named parameters that ended up inside free text.
    return value
      // A failed query's message ends with its parameters: what a request sent, never for a log.
      .replace(/(\bparams: )[\s\S]*$/, `$1${REDACTED}`)
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`)
      .replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, `$1:${REDACTED}@`)
      .replace(/\b(client_secret|password|access_token|token)=[^&\s"']+/gi, `$1=${REDACTED}`)
  }
  return value
}

/**
 * What a log line says of a failure: the error's class name (`TypeError`, `UpstreamError`),
 * never its message, which can hold a query's parameters or a service's answer; `"unknown"`
 * when what was thrown is not an Error.
 */
export const errorKind = (error: unknown): string => (error instanceof Error ? error.name : "unknown")

function write(level: Level, event: string, fields: Record<string, unknown>) {
  const threshold = ORDER[env().logLevel]
  if (ORDER[level] < threshold) return
  const traceId = activeTraceId()
  const line = JSON.stringify({ time: new Date().toISOString(), level, event, ...(traceId ? { traceId } : {}), ...(loggable(redact(fields)) as object) })
  if (level === "error" || level === "warn") process.stderr.write(line + "\n")
  else process.stdout.write(line + "\n")
}

/** Structured JSON lines; every field passes through `redact`, then `loggable` (no email), first. */
export const log = {
  debug: (event: string, fields: Record<string, unknown> = {}) => write("debug", event, fields),
  info: (event: string, fields: Record<string, unknown> = {}) => write("info", event, fields),
  warn: (event: string, fields: Record<string, unknown> = {}) => write("warn", event, fields),
  error: (event: string, fields: Record<string, unknown> = {}) => write("error", event, fields),
}
