import { encode } from "next-auth/jwt"
import { beforeEach, describe, expect, it } from "vitest"
import { decodeSessionToken, forgetDecodedSessions } from "@/lib/auth/session-decode"

const secret = "s".repeat(40)

async function token(maxAge = 60) {
  return encode({ token: { email: "trader@example.com", role: "trader" }, secret, maxAge })
}

describe("decodeSessionToken", () => {
  beforeEach(() => forgetDecodedSessions())

  it("decodes like next-auth and answers the same cookie again without decoding it", async () => {
    const cookie = await token()
    const first = await decodeSessionToken({ token: cookie, secret })
    expect(first).toMatchObject({ email: "trader@example.com", role: "trader" })
    const second = await decodeSessionToken({ token: cookie, secret })
    expect(second).toBe(first)
    expect(Object.isFrozen(second)).toBe(true)
  })

  it("decodes again once the remembered claims have expired", async () => {
    const cookie = await token(60)
    const first = await decodeSessionToken({ token: cookie, secret })
    // 60 s lifetime + 15 s tolerance: at +80 s the remembered claims are not served.
    const later = await decodeSessionToken({ token: cookie, secret }, () => Date.now() + 80_000)
    expect(later).not.toBe(first)
    expect(later).toEqual(first)
  })

  it("never serves a remembered cookie under another secret", async () => {
    const cookie = await token()
    await decodeSessionToken({ token: cookie, secret })
    await expect(decodeSessionToken({ token: cookie, secret: "t".repeat(40) })).rejects.toThrow()
  })

  it("refuses what the decoder refuses and remembers nothing of it", async () => {
    const cookie = await token()
    const tampered = cookie.slice(0, -4) + (cookie.endsWith("AAAA") ? "BBBB" : "AAAA")
    await expect(decodeSessionToken({ token: tampered, secret })).rejects.toThrow()
    await expect(decodeSessionToken({ token: tampered, secret })).rejects.toThrow()
    expect(await decodeSessionToken({ token: "", secret })).toBeNull()
  })
})
