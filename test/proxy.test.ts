import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import fc from "fast-check"
import { NextRequest } from "next/server"
import { afterAll, describe, expect, it } from "vitest"

const dataDir = mkdtempSync(path.join(tmpdir(), "proxy-"))
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = "proxy-tests-secret-0123456789-abcdefghijklmnop"
process.env.LOG_LEVEL = "silent"
const { proxy } = await import("@/proxy")
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

function decodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname)
    return true
  } catch {
    return false
  }
}

describe("without NEXTAUTH_URL", () => {
  it("a page asked for under a Host that is not a loopback name is refused 403 (DNS rebinding); localhost is served", async () => {
    const foreign = await proxy(new NextRequest("http://localhost/trade", { headers: { host: "evil.example" } }))
    expect(foreign.status).toBe(403)
    expect(foreign.headers.get("content-type")).toBe("application/problem+json")
    const local = await proxy(new NextRequest("http://localhost/sign-in", { headers: { host: "localhost:3000" } }))
    expect(local.status).toBe(200)
    expect(local.headers.get("content-security-policy")).toContain("'nonce-")
  })
})

describe("paths with malformed percent-encoding", () => {
  it("are a 400 problem on pages and API paths alike, anything else is never a 5xx (property)", async () => {
    const escape = fc.constantFrom("%", "%u", "%ud800", "%zz", "%E0%A4%A", "%C0%80", "%FF", "%ED%A0%80", "%2F", "%41", "%E2%82%AC", "%%")
    const segment = fc.array(fc.oneof(escape, fc.stringMatching(/^[A-Za-z0-9._~-]{0,8}$/)), { maxLength: 4 }).map((parts) => parts.join(""))
    const prefix = fc.constantFrom("/api/conversions/", "/sandbox/v2/conversions/", "/conversions/", "/executions/p/", "/")
    await fc.assert(
      fc.asyncProperty(prefix, segment, async (start, rest) => {
        const req = new NextRequest(`http://localhost${start}${rest}`, { method: "DELETE" })
        const res = await proxy(req)
        expect(res.status).toBeLessThan(500)
        if (!decodes(req.nextUrl.pathname)) {
          expect(res.status).toBe(400)
          expect(res.headers.get("content-type")).toBe("application/problem+json")
        }
      }),
      { numRuns: 300 },
    )
  })
})
