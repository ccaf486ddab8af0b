import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { createServer } from "node:net"
import path from "node:path"
import { type APIRequestContext, expect, request as playwrightRequest, test } from "@playwright/test"
import { DEMO_PASSWORD, emailOf, signIn, storageStateOf } from "./helpers"

// The doors an attacker or a careless operator would try, by the same requests.

async function cookieHeaderOf(context: { cookies(): Promise<{ name: string; value: string }[]> }): Promise<string> {
  return (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ")
}

async function apiWith(baseURL: string, cookie: string): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { cookie, origin: baseURL } })
}

test.describe("signed out: what anyone gets", () => {
  test("a protected API route answers 401 problem+json without a session", async ({ request }) => {
    const res = await request.get("/api/me")
    expect(res.status()).toBe(401)
    expect(res.headers()["content-type"]).toContain("application/problem+json")
    const body = (await res.json()) as { status: number; title: string }
    expect(body).toMatchObject({ status: 401, title: "Unauthorized" })
  })

  test("health answers without a session and says nothing secret", async ({ request }) => {
    const res = await request.get("/api/health")
    expect(res.status()).toBe(200)
    // On PGlite the console is the only instance there can be: it counts the service's limits itself.
    // The event reader reads alone too; what it says of itself is a flag and numbers, nothing more.
    const body = (await res.json()) as Record<string, unknown> & { events: Record<string, unknown> }
    expect(body).toMatchObject({ status: "ok", mode: "sandbox", database: "ok", limiter: "solo", events: { reader: true } })
    expect(Object.keys(body).sort()).toEqual(["database", "events", "limiter", "mode", "status"])
    expect(Object.keys(body.events).sort()).toEqual(["behind", "lag_seconds", "last_read_seconds", "parked", "reader", "retrying"])
    expect(body.events.behind).toBe(false)
    for (const key of ["lag_seconds", "last_read_seconds", "retrying", "parked"]) {
      expect(body.events[key] === null || typeof body.events[key] === "number", `${key}: ${String(body.events[key])}`).toBe(true)
    }
  })

  test("pages carry the security headers", async ({ request }) => {
    const res = await request.get("/sign-in")
    const headers = res.headers()
    expect(headers["content-security-policy"]).toContain("default-src 'self'")
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'")
    expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[^']+'/)
    expect(headers["x-content-type-options"]).toBe("nosniff")
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin")
    expect(headers["permissions-policy"]).toContain("camera=()")
  })

  test("API answers, the sandbox and Next's assets carry the strict CSP, a page path that looks like one does not", async ({ request }) => {
    const sandboxPath = "/sandbox/v2/profiles"
    const page = await request.get("/sign-in")
    const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(await page.text())?.[1] ?? ""
    expect(asset).not.toBe("")
    for (const path of ["/api/health", sandboxPath, asset]) {
      const res = await request.get(path)
      expect(`${path} ${res.headers()["content-security-policy"] ?? "none"}`).toBe(`${path} default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'`)
      expect(res.headers()["x-content-type-options"]).toBe("nosniff")
    }
    // /apis is a page path (a 404 page): it gets the page's CSP with a nonce, not the API's.
    const lookalike = await request.get("/apis")
    expect(lookalike.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/)
  })
})

test.describe("the API over HTTP", () => {
  test.describe("as a viewer", () => {
    test.use({ storageState: storageStateOf("viewer") })
    test("an admin-only route answers 403 problem+json", async ({ request }) => {
      const res = await request.get("/api/audit")
      expect(res.status()).toBe(403)
      expect(res.headers()["content-type"]).toContain("application/problem+json")
      expect(await res.json()).toMatchObject({ status: 403, detail: "This needs the admin role; you are viewer." })
    })
  })

  test.describe("as an admin", () => {
    test.use({ storageState: storageStateOf("admin") })
    test("a cross-origin POST is refused with 403, a same-origin one goes through", async ({ request, baseURL }) => {
      const cross = await request.post("/api/audit/reconcile", { headers: { origin: "https://evil.example" } })
      expect(cross.status()).toBe(403)
      expect(await cross.json()).toMatchObject({ status: 403, detail: "Cross-site requests are refused." })
      const same = await request.post("/api/audit/reconcile", { headers: { origin: baseURL! } })
      expect(same.status()).toBe(200)
      expect(typeof ((await same.json()) as { examined: unknown }).examined).toBe("number")
    })
  })
})

test.describe("sessions the server can end", () => {
  test("after signing out, the old cookie gets 401 from GET /api/me and POST /api/conversions, and /api/auth/session does not renew it", async ({ browser, baseURL }) => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto("/sign-in")
    await signIn(page, emailOf("trader"), DEMO_PASSWORD)
    await expect(page.getByTestId("staff-role")).toHaveText("trader")
    const kept = await apiWith(baseURL!, await cookieHeaderOf(context))

    expect((await kept.get("/api/me")).status()).toBe(200)
    const profiles = (await (await kept.get("/api/profiles")).json()) as { items: { id: string }[] }
    const conversion = () => ({ profile_id: profiles.items[0]!.id, amount: "1.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    expect((await kept.post("/api/conversions", { data: conversion() })).status()).toBe(200)

    await page.getByRole("button", { name: "Sign out" }).click()
    await expect(page).toHaveURL(/\/sign-in/)

    const me = await kept.get("/api/me")
    expect(me.status()).toBe(401)
    expect(me.headers()["content-type"]).toContain("application/problem+json")
    expect((await kept.post("/api/conversions", { data: conversion() })).status()).toBe(401)
    const session = await kept.get("/api/auth/session")
    expect(await session.json()).toEqual({})
    // No fresh session cookie comes back; the old one is cleared.
    const setCookie = session.headersArray().filter((h) => h.name.toLowerCase() === "set-cookie").map((h) => h.value)
    expect(setCookie.every((c) => !/session-token=[^;]+/.test(c) || /session-token=;/.test(c))).toBe(true)
    await kept.dispose()
    await context.close()
  })

  test.describe("as an admin", () => {
    test.use({ storageState: storageStateOf("admin") })

    test("Sessions lists a trader's session with where it is from, and ending it sends the trader to sign-in at once", async ({ page, browser }) => {
      const probe = `e2e-session-probe-${randomUUID()}`
      const traderContext = await browser.newContext({ userAgent: probe, storageState: { cookies: [], origins: [] } })
      const trader = await traderContext.newPage()
      await trader.goto("/sign-in")
      await signIn(trader, emailOf("trader"), DEMO_PASSWORD)
      await expect(trader.getByTestId("staff-role")).toHaveText("trader")

      await page.goto("/")
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sessions" }).click()
      await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible()
      const row = page.getByTestId("session-row").filter({ hasText: probe })
      await expect(row).toHaveCount(1)
      await expect(row.getByRole("cell").nth(0)).toHaveText(emailOf("trader"))
      await expect(row.getByRole("cell").nth(1)).toHaveText("trader")
      await expect(row).toContainText("127.0.0.1")
      await row.getByRole("button", { name: `End session of ${emailOf("trader")}` }).click()
      await expect(page.getByTestId("session-row").filter({ hasText: probe })).toHaveCount(0)

      await trader.goto("/trade")
      await expect(trader).toHaveURL(/\/sign-in/)
      const api = await apiWith(page.url(), await cookieHeaderOf(traderContext))
      expect((await api.get("/api/me")).status()).toBe(401)
      await api.dispose()
      await traderContext.close()

      // The end is on the audit trail, under the sign-in events filter.
      await page.goto("/audit")
      await page.getByRole("link", { name: "Sign-in events" }).click()
      const ended = page.getByTestId("sign-in-event").filter({ hasText: "Session ended" }).filter({ hasText: "by admin@example.com" })
      await expect(ended.first()).toContainText(emailOf("trader"))
    })
  })
})

test.describe("sign-in throttling", () => {
  test("five wrong passwords lock the account, and the form says when to try again", async ({ browser }) => {
    // Its own address, so the suite's other sign-ins from 127.0.0.1 are not counted with these.
    const context = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": "203.0.113.50" } })
    const page = await context.newPage()
    await page.goto("/sign-in")
    const alert = page.getByRole("form", { name: "Sign in" }).getByRole("alert")
    for (let i = 0; i < 4; i++) {
      await signIn(page, "locked-e2e@example.com", `wrong-${i}`)
      await expect(alert).toHaveText("Wrong email or password.")
      await page.getByRole("form", { name: "Sign in" }).getByRole("alert").waitFor()
    }
    await signIn(page, "locked-e2e@example.com", "wrong-4")
    await expect(alert).toHaveText(/^Too many failed sign-ins for this account\. Try again after .+ \(in about 1 minute\)\.$/)
    await context.close()
  })

  test("an address with more than 30 failures in 10 minutes is answered 429", async ({ request }) => {
    const headers = { "x-forwarded-for": "203.0.113.77", "content-type": "application/x-www-form-urlencoded" }
    const csrf = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string }
    const form = (i: number) => new URLSearchParams({ csrfToken: csrf.csrfToken, email: `flood-${i}@example.com`, password: "x", json: "true" }).toString()
    for (let i = 0; i < 30; i++) {
      const res = await request.post("/api/auth/callback/credentials", { headers, data: form(i) })
      expect(res.status()).toBe(401)
    }
    const refused = await request.post("/api/auth/callback/credentials", { headers, data: form(31) })
    expect(refused.status()).toBe(429)
    expect(refused.headers()["content-type"]).toBe("application/problem+json")
    expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0)
  })
})

test.describe("same-origin redirects only", () => {
  test.use({ storageState: storageStateOf("viewer") })

  test("a callbackUrl that leaves the console, or holds a control character or a wide space, goes to /; none is a 500", async ({ request }) => {
    for (const raw of ["%2F%09%2Fevil.example%2Fphish", "%2F%0A%2Fevil.example", "%2F%0D%2Fevil.example", "%2F%E3%80%80%2Fevil.example", "https%3A%2F%2Fevil.example%2F", "%2F%2Fevil.example"]) {
      const res = await request.get(`/sign-in?callbackUrl=${raw}`, { maxRedirects: 0 })
      expect(`${raw} ${res.status()} ${res.headers()["location"]}`).toBe(`${raw} 307 /`)
    }
    const kept = await request.get(`/sign-in?callbackUrl=${encodeURIComponent("/executions?side=BUY")}`, { maxRedirects: 0 })
    expect(kept.headers()["location"]).toBe("/executions?side=BUY")
  })
})

test.describe("every page gets its CSP", () => {
  test.use({ storageState: storageStateOf("viewer") })

  test("page paths ending in .js, .css, .txt or .map carry the page CSP", async ({ request }) => {
    for (const path of ["/conversions/abc.js", "/conversions/abc.css", "/executions/abc.txt", "/trade.map"]) {
      const res = await request.get(path, { maxRedirects: 0 })
      expect(`${path} ${res.headers()["content-security-policy"] ?? "none"}`).toMatch(new RegExp(`^${path.replace(".", "\\.")} .*script-src 'self' 'nonce-`))
    }
  })
})

test.describe("bounded bodies", () => {
  const big = "a".repeat(200 * 1024)

  test("anonymous: the token endpoint and next-auth's endpoints refuse a large body with 413 problem+json", async ({ request }) => {
    for (const [path, type] of [
      ["/sandbox/oauth2/token", "application/x-www-form-urlencoded"],
      ["/api/auth/callback/credentials", "application/x-www-form-urlencoded"],
    ] as const) {
      const res = await request.post(path, { headers: { "content-type": type }, data: big })
      expect(`${path} ${res.status()} ${res.headers()["content-type"]}`).toBe(`${path} 413 application/problem+json`)
    }
  })

  test.describe("signed in", () => {
    test.use({ storageState: storageStateOf("trader") })
    test("a console API body over 64 KiB is 413 problem+json", async ({ request, baseURL }) => {
      const res = await request.post("/api/conversions", { headers: { "content-type": "application/json", origin: baseURL! }, data: `{"x":"${big}"}` })
      expect(res.status()).toBe(413)
      expect(await res.json()).toMatchObject({ status: 413, detail: "The body must be at most 64 KiB." })
    })

    test("a lone surrogate in metadata or a ref_id is a 400 naming the field, not a 500", async ({ request, baseURL }) => {
      const profiles = (await (await request.get("/api/profiles")).json()) as { items: { id: string }[] }
      const base = `"profile_id":"${profiles.items[0]!.id}","amount":"1.00","source_asset":"USD","target_asset":"USDP"`
      const send = (json: string) => request.post("/api/conversions", { headers: { "content-type": "application/json", origin: baseURL! }, data: json })
      const inMetadata = await send(`{${base},"ref_id":"${randomUUID()}","metadata":{"k":"\\ud800"}}`)
      expect(inMetadata.status()).toBe(400)
      expect(await inMetadata.json()).toMatchObject({ meta: { fields: { "metadata.k": expect.stringContaining("lone surrogate") } } })
      const inRefId = await send(`{${base},"ref_id":"abc\\udfff"}`)
      expect(inRefId.status()).toBe(400)
      expect(await inRefId.json()).toMatchObject({ meta: { fields: { ref_id: expect.stringContaining("lone surrogate") } } })
    })
  })
})

test.describe("malformed percent-encoding", () => {
  test("DELETE /api/conversions/%ud800 is a 400 problem, signed out and signed in", async ({ browser, baseURL }) => {
    for (const state of [undefined, storageStateOf("trader")]) {
      const context = await browser.newContext(state ? { storageState: state } : {})
      const res = await context.request.delete("/api/conversions/%ud800", { headers: { origin: baseURL! } })
      expect(res.status()).toBe(400)
      expect(res.headers()["content-type"]).toContain("application/problem+json")
      await context.close()
    }
  })
})

test.describe("no demo door in production", () => {
  test("next start without CONSOLE_MODE refuses to start, naming the variable; sandbox mode without a DEMO_PASSWORD too", async () => {
    const next = path.resolve("node_modules/next/dist/bin/next")
    // A port nobody listens on (the suite's other servers hold fixed ones): a refusal must come from the configuration.
    const port = String(await freePort())
    const blank = Object.fromEntries(
      ["CONSOLE_MODE", "UPSTREAM_BASE_URL", "UPSTREAM_TOKEN_URL", "UPSTREAM_CLIENT_ID", "UPSTREAM_CLIENT_SECRET", "DEMO_PASSWORD", "DATABASE_URL"].map((k) => [k, ""]),
    )
    const start = (extra: Record<string, string>) =>
      spawnSync(process.execPath, [next, "start", "-p", port, "-H", "127.0.0.1"], {
        env: { ...process.env, ...blank, NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(40), CONSOLE_USERS: "", ...extra },
        encoding: "utf8",
        timeout: 60_000,
      })
    const noMode = start({})
    expect(noMode.status).not.toBe(0)
    expect(noMode.stdout + noMode.stderr).toContain("CONSOLE_MODE: is required under next start")
    const noPassword = start({ CONSOLE_MODE: "sandbox" })
    expect(noPassword.status).not.toBe(0)
    expect(noPassword.stdout + noPassword.stderr).toContain("DEMO_PASSWORD: is required in sandbox mode under next start")
  })

  test("the sign-in page lists the demo emails but not an explicit DEMO_PASSWORD", async ({ page }) => {
    await page.goto("/sign-in")
    const demo = page.getByRole("region", { name: "Sandbox demo users" })
    await expect(demo).toContainText("admin@example.com")
    await expect(demo).toContainText("the DEMO_PASSWORD this console was started with")
    await expect(demo).not.toContainText(DEMO_PASSWORD)
  })
})

/** A loopback port that is free right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))))
    })
  })
}
