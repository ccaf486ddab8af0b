import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import bcrypt from "bcryptjs"
import { NextRequest } from "next/server"
import { afterAll, describe, expect, it, vi } from "vitest"
import { staffRef } from "@/lib/auth/staff-ref"

// Sign-in's doors: guessing limits (in the database), what reaches the log, the size of
// what next-auth's endpoints will read, and where a sign-in may send the browser.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-sign-in-"))
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = "sign-in-tests-secret-0123456789-abcdefghijklm"
process.env.LOG_LEVEL = "info"
process.env.CONSOLE_USERS = JSON.stringify([
  { email: "ops@example.com", role: "trader", passwordHash: bcrypt.hashSync("ops-password-1", 4) },
  { email: "ops2@example.com", role: "trader", passwordHash: bcrypt.hashSync("ops-password-2", 4) },
])

const { authOptions, LOCKED_PREFIX } = await import("@/lib/auth/options")
const { runWithAuthRequest } = await import("@/lib/auth/request-context")
const route = await import("@/app/api/auth/[...nextauth]/route")

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

type Authorize = (c: Record<string, string>) => Promise<{ email: string } | null>
const authorize = (authOptions().providers[0] as unknown as { options: { authorize: Authorize } }).options.authorize

function attempt(email: string, password: string, address: string) {
  return runWithAuthRequest({ userAgent: "vitest", address }, () => authorize({ email, password }))
}

/** Everything written to stdout and stderr while `run` ran. */
async function output(run: () => Promise<unknown>): Promise<string> {
  const lines: string[] = []
  const capture = (chunk: string | Uint8Array) => {
    lines.push(String(chunk))
    return true
  }
  vi.spyOn(process.stdout, "write").mockImplementation(capture)
  vi.spyOn(process.stderr, "write").mockImplementation(capture)
  try {
    await run()
  } finally {
    vi.restoreAllMocks()
  }
  return lines.join("")
}

function post(action: string, body: BodyInit | null, headers: Record<string, string>) {
  const req = new NextRequest(`http://localhost/api/auth/${action}`, { method: "POST", headers, body, duplex: "half" })
  return route.POST(req, { params: Promise.resolve({ nextauth: action.split("/") }) })
}

describe("sign-in throttling", () => {
  it("after 5 wrong passwords the account is locked, the right password included, with no bcrypt work and a time to come back", async () => {
    for (let i = 0; i < 4; i++) expect(await attempt("ops@example.com", "wrong", "10.0.0.1")).toBeNull()
    const fifth = attempt("ops@example.com", "wrong", "10.0.0.1")
    await expect(fifth).rejects.toThrow(LOCKED_PREFIX)
    const compare = vi.spyOn(bcrypt, "compare")
    const locked = attempt("ops@example.com", "ops-password-1", "10.0.0.2")
    await expect(locked).rejects.toThrow(new RegExp(`^${LOCKED_PREFIX}\\d{4}-\\d{2}-\\d{2}T`))
    expect(compare).not.toHaveBeenCalled()
    // The same spy does see the work of an attempt that is not refused.
    await attempt("ops2@example.com", "x", "10.0.0.2")
    expect(compare).toHaveBeenCalledTimes(1)
    vi.restoreAllMocks()
  })

  it("an address with more than 30 failures is answered 429 problem+json before next-auth runs", async () => {
    for (let i = 0; i < 30; i++) expect(await attempt(`nobody-${i}@example.com`, "x", "198.51.100.9")).toBeNull()
    const res = await post("callback/credentials", new URLSearchParams({ email: "ops@example.com", password: "x", json: "true" }), {
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": "198.51.100.9",
    })
    expect(res.status).toBe(429)
    expect(res.headers.get("content-type")).toBe("application/problem+json")
    const retryAfter = Number(res.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(300)
    expect(retryAfter).toBeLessThanOrEqual(600)
    const body = (await res.json()) as { detail: string; url: string }
    // The window began at the first failure: on a slow machine the 30 took a minute or more.
    const minutes = /^Too many failed sign-ins from your address\. Try again in (\d+) minutes\.$/.exec(body.detail)?.[1]
    expect(Number(minutes)).toBeGreaterThanOrEqual(Math.floor(retryAfter / 60))
    expect(Number(minutes)).toBeLessThanOrEqual(Math.ceil(retryAfter / 60))
    // next-auth's client reads `url`: the form shows the same message.
    expect(new URL(body.url, "http://localhost").searchParams.get("error")).toMatch(/^Throttled:\d+$/)
    // Each of the 30 unknown emails costs a full scrypt check (N=2^17), as a real one would.
  }, 120_000)

  it("a password typed into the email field never reaches a log line; a staff email is logged as its reference, never as itself", async () => {
    const logged = await output(async () => {
      await attempt("hunter2-typed-as-email", "x", "10.0.0.9")
      await attempt("support@example.com", "wrong", "10.0.0.9")
    })
    expect(logged).not.toContain("hunter2")
    expect(logged).toContain("(not a staff email)")
    expect(logged).toContain(staffRef("support@example.com"))
    expect(logged).not.toContain("support@example.com")
  })
})

describe("next-auth's endpoints read at most 8 KiB", () => {
  it("a Content-Length over the limit is 413 problem+json at once", async () => {
    const res = await post("callback/credentials", "a".repeat(9000), {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": "104857600",
    })
    expect(res.status).toBe(413)
    expect(res.headers.get("content-type")).toBe("application/problem+json")
    expect(await res.json()).toMatchObject({ status: 413, detail: "The body must be at most 8 KiB." })
  })

  it("a body without a length is cut off one byte past the limit (the rest is never pulled)", async () => {
    let pulled = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024
        controller.enqueue(new Uint8Array(1024).fill(97))
      },
    })
    const res = await post("callback/credentials", endless, { "content-type": "application/x-www-form-urlencoded" })
    expect(res.status).toBe(413)
    expect(pulled).toBeLessThanOrEqual(8 * 1024 + 2 * 1024)
  })
})

describe("next-auth's redirects stay on the console", () => {
  it("keeps same-origin paths and sends anything else to /", async () => {
    const redirect = authOptions().callbacks!.redirect!
    const baseUrl = "http://localhost:3000"
    const to = (url: string) => redirect({ url, baseUrl })
    expect(await to("http://localhost:3000/trade?x=1")).toBe("http://localhost:3000/trade?x=1")
    expect(await to("/conversions")).toBe("http://localhost:3000/conversions")
    expect(await to("/\t/evil.example/phish")).toBe("http://localhost:3000/")
    expect(await to("https://evil.example/")).toBe("http://localhost:3000/")
    expect(await to("//evil.example/")).toBe("http://localhost:3000/")
  })
})
