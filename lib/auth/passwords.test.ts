import bcrypt from "bcryptjs"
import { describe, expect, it } from "vitest"

const { hashPassword, needsRehash, passwordWeakness, verifyPasswordHash } = await import("@/lib/auth/passwords")

describe("staff passwords", () => {
  it("new passwords are hashed with scrypt (a fresh salt each), verify, and refuse a wrong password", async () => {
    const a = await hashPassword("Orchid-Tandem-Harbor-42")
    const b = await hashPassword("Orchid-Tandem-Harbor-42")
    expect(a).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
    expect(a).not.toBe(b)
    expect(await verifyPasswordHash("Orchid-Tandem-Harbor-42", a)).toBe(true)
    expect(await verifyPasswordHash("Orchid-Tandem-Harbor-43", a)).toBe(false)
    expect(needsRehash(a)).toBe(false)
  })

  it("bcrypt hashes from CONSOLE_USERS still verify, and are marked for replacement", async () => {
    const hash = bcrypt.hashSync("ops-password-1", 4)
    expect(await verifyPasswordHash("ops-password-1", hash)).toBe(true)
    expect(await verifyPasswordHash("ops-password-2", hash)).toBe(false)
    expect(needsRehash(hash)).toBe(true)
  })

  it("an unreadable or tampered hash never verifies", async () => {
    expect(await verifyPasswordHash("x", "")).toBe(false)
    expect(await verifyPasswordHash("x", "scrypt$30$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5")).toBe(false)
    expect(await verifyPasswordHash("x", "md5$abc")).toBe(false)
  })

  it("a new password needs 12 characters and a zxcvbn score of 3, and may not lean on the email", () => {
    expect(passwordWeakness("Short-1!")).toBe("must be at least 12 characters")
    expect(passwordWeakness("password1234")).toMatch(/^is too easy to guess \(strength \d of 4, needs 3\): This is similar to a commonly used password\./)
    expect(passwordWeakness("new.trader@example.com", ["new.trader@example.com", "new.trader"])).toMatch(/^is too easy to guess/)
    expect(passwordWeakness("Orchid-Tandem-Harbor-42")).toBeNull()
    expect(passwordWeakness("x".repeat(257))).toBe("must be at most 256 characters")
  })
})
