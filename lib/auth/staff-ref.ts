import "server-only"
import { createHmac, randomBytes } from "node:crypto"
import { authSecret } from "@/lib/auth/secret"

/**
 * A staff member's reference in log lines: `staff_` and 16 hex digits of an HMAC-SHA256 of
 * the lower-cased email, keyed from the session secret (NEXTAUTH_SECRET, or the one sandbox
 * mode keeps under DATA_DIR). The same email gives the same reference on every instance
 * and across restarts, so one person's lines can be followed; without the key it cannot be
 * turned back into the email, nor found by hashing a list of guessed addresses. Emails
 * stay in the database (intents, sessions), where the audit and admin pages read them.
 */
let key: Buffer | undefined

function refKey(): Buffer {
  if (key) return key
  try {
    // A key of its own, derived from the secret: a reference never reveals anything about it.
    key = createHmac("sha256", authSecret()).update("console staff reference v1").digest()
  } catch {
    // No secret to derive from (outside sandbox mode without NEXTAUTH_SECRET, where the
    // console refuses to start anyway): this process's own key, still not reversible.
    key = randomBytes(32)
  }
  return key
}

export function staffRef(email: string): string {
  return `staff_${createHmac("sha256", refKey()).update(email.trim().toLowerCase()).digest("hex").slice(0, 16)}`
}

/** An email anywhere in a string (a field's value, an error's message). */
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+/g

/** `text` with every email in it replaced by its staff reference. */
export function withoutEmails(text: string): string {
  return text.includes("@") ? text.replace(EMAIL, (email) => staffRef(email)) : text
}
