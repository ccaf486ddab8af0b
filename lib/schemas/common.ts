import { z } from "zod"

/** "is required" when the field is absent, `otherwise` when it has the wrong type. */
export function requiredOr(otherwise: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : otherwise)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in its usual text form (any case): what the console's own ids are. */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}

/** A JSON object: what a request body's fields are read from. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/**
 * Options for an object-level rule (one that relates two fields) that must be checked even
 * when a field failed its own rule: zod skips such a rule after a field's type error, and
 * a 400 names every offending field. The rule then sees the body as sent (its fields may
 * have any type, so it reads them as unknown), and only ever an object.
 */
export const EVEN_WITH_FIELD_ERRORS = { when: (payload: { value: unknown }) => isJsonObject(payload.value) }

/**
 * A client reference id as the console's own API takes it: what the console generates is a
 * UUID, but any short token is accepted. Checked as sent, never trimmed: a ref_id is what
 * a retry is matched by, so " abc" is refused rather than quietly becoming "abc".
 */
export const refIdSchema = z
  .string({ error: requiredOr("must be text") })
  .min(1, "must not be empty")
  .max(128, "at most 128 characters")
  .regex(/^[A-Za-z0-9._:-]*$/, "letters, digits and . _ : - only")

/** The longest ref_id the sandbox stores (the service documents no limit). */
export const SERVICE_REF_ID_MAX = 255

/**
 * A ref_id as the service takes it: any non-empty text, stored and echoed exactly as sent
 * (spaces, "/", any script). The sandbox's rule; only a NUL character is refused, which
 * no database text column can hold.
 */
export const serviceRefIdSchema = z
  .string({ error: requiredOr("must be text") })
  .min(1, "must not be empty")
  .max(SERVICE_REF_ID_MAX, `at most ${SERVICE_REF_ID_MAX} characters`)
  .refine((value) => !value.includes("\u0000"), "must not contain NUL characters")

/** Ids of profiles, identities and accounts: opaque strings (UUIDs on the real service). */
export const idSchema = z
  .string({ error: requiredOr("must be text") })
  .trim()
  .min(1, "is required")
  .max(128, "at most 128 characters")
  .regex(/^[A-Za-z0-9._:-]*$/, "letters, digits and . _ : - only")

import { RFC3339 } from "@/lib/schemas/constants"

export { RFC3339 }

const DATE_TIME_RULE = "must be an RFC 3339 date-time like 2026-01-31T12:00:00Z"
export const dateTimeSchema = z.string({ error: requiredOr(DATE_TIME_RULE) }).regex(RFC3339, DATE_TIME_RULE)
