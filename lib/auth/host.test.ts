import { describe, expect, it } from "vitest"
import { isLoopbackHost } from "@/lib/auth/host"
import { safeCallback } from "@/lib/auth/callback"

describe("loopback hosts (what a console without NEXTAUTH_URL answers to)", () => {
  it("accepts localhost names and loopback addresses with any port, and nothing else", () => {
    for (const host of ["localhost", "localhost:3000", "app.localhost:3000", "127.0.0.1", "127.1.2.3:80", "[::1]", "[::1]:3000"]) {
      expect(isLoopbackHost(host), host).toBe(true)
    }
    for (const host of ["evil.example", "evil.example:3000", "localhost.evil.example", "127.0.0.1.evil.example", "10.0.0.1", "[::2]", "0.0.0.0", ""]) {
      expect(isLoopbackHost(host), host).toBe(false)
    }
  })
})

describe("safeCallback", () => {
  it("keeps same-origin paths, and turns everything else, or anything with a control character or a space, into /", () => {
    expect(safeCallback("/executions?side=BUY#x")).toBe("/executions?side=BUY#x")
    expect(safeCallback("/conversions/abc", "http://127.0.0.1:3000")).toBe("/conversions/abc")
    expect(safeCallback("http://127.0.0.1:3000/trade", "http://127.0.0.1:3000")).toBe("/trade")
    for (const raw of ["/\t/evil.example/phish", "/\n/evil.example", "/\r/evil.example", "/\u3000/evil.example", "/\u00a0x", "/ x", "//evil.example", "/\\evil.example", "https://evil.example/", "http://127.0.0.1:3001/", "javascript:alert(1)", "", undefined, null]) {
      expect(safeCallback(raw, "http://127.0.0.1:3000"), JSON.stringify(raw)).toBe("/")
    }
  })
})
