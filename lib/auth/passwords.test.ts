import bcrypt from "bcryptjs"
import { describe, expect, it } from "vitest"

const opsHash = bcrypt.hashSync("ops-password-1", 4)
process.env.CONSOLE_USERS = JSON.stringify([{ email: "ops@example.com", role: "support", passwordHash: opsHash }])
process.env.LOG_LEVEL = "silent"

const { dummyHash, verifyStaffPassword } = await import("@/lib/auth/passwords")

describe("staff passwords", () => {
  it("signs in configured staff and demo users, and refuses a wrong password and an unknown email alike", async () => {
    expect(await verifyStaffPassword(" OPS@example.com ", "ops-password-1")).toEqual({ email: "ops@example.com", role: "support" })
    expect(await verifyStaffPassword("trader@example.com", "demo-password")).toEqual({ email: "trader@example.com", role: "trader" })
    expect(await verifyStaffPassword("ops@example.com", "wrong")).toBeNull()
    expect(await verifyStaffPassword("nobody@example.com", "ops-password-1")).toBeNull()
    expect(await verifyStaffPassword("trader@example.com", "wrong")).toBeNull()
  })

  it("an unknown email is checked against a hash as slow as the staff's own (no timing tells which emails exist)", async () => {
    const cost12 = "$2b$12$" + "a".repeat(53)
    expect((await dummyHash([cost12])).slice(0, 7)).toBe("$2b$12$")
    expect((await dummyHash(["$2b$11$" + "a".repeat(53), cost12])).slice(0, 7)).toBe("$2b$12$")
    expect((await dummyHash([opsHash])).slice(0, 7)).toBe("$2b$04$")
    expect((await dummyHash([])).slice(0, 7)).toBe("$2b$10$")
  })
})
