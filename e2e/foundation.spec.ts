import { expect, test } from "@playwright/test"
import { DEMO_PASSWORD, ROLES, emailOf, signIn, storageStateOf } from "./helpers"

test.describe("signed in", () => {
  for (const role of ROLES) {
    test.describe(role, () => {
      test.use({ storageState: storageStateOf(role) })

      test(`${role} sees who they are, the sandbox banner and their navigation`, async ({ page }) => {
        await page.goto("/")
        await expect(page.getByTestId("home-email")).toHaveText(emailOf(role))
        await expect(page.getByTestId("home-role")).toHaveText(role)
        await expect(page.getByTestId("env-mode")).toHaveText("SANDBOX")
        await expect(page.getByTestId("env-conversions-api")).toHaveText("Stablecoin conversions")
        const nav = page.getByRole("navigation", { name: "Main" })
        await expect(nav.getByRole("link", { name: "Trade" })).toBeVisible()
        await expect(nav.getByRole("link", { name: "Audit" })).toHaveCount(role === "admin" ? 1 : 0)
        await expect(nav.getByRole("link", { name: "Sandbox" })).toHaveCount(role === "admin" ? 1 : 0)
      })
    })
  }
})

test.describe("signed out", () => {
  test("a wrong password and an unknown email get the same plain refusal", async ({ page }) => {
    await page.goto("/sign-in")
    await signIn(page, "trader@example.com", "not-the-password")
    await expect(page.getByRole("form", { name: "Sign in" }).getByRole("alert")).toHaveText("Wrong email or password.")
    await signIn(page, "nobody@example.com", DEMO_PASSWORD)
    await expect(page.getByRole("form", { name: "Sign in" }).getByRole("alert")).toHaveText("Wrong email or password.")
    await expect(page).toHaveURL(/\/sign-in/)
  })

  test("the sign-in form names what is missing before asking the server, and ignores stray spaces", async ({ page }) => {
    await page.goto("/sign-in")
    const form = page.getByRole("form", { name: "Sign in" })
    await form.getByRole("button", { name: "Sign in", exact: true }).click()
    await expect(form.getByText("Enter your email")).toBeVisible()
    await expect(form.getByText("Enter your password")).toBeVisible()
    await signIn(page, "trader", DEMO_PASSWORD)
    await expect(form.getByText("Enter an email like name@example.com")).toBeVisible()
    await expect(form.getByText("Enter your password")).toBeHidden()
    await signIn(page, "  trader@example.com ", DEMO_PASSWORD)
    await expect(page.getByTestId("staff-role")).toHaveText("trader")
  })

  test("a console page redirects to sign-in and back after signing in", async ({ page }) => {
    await page.goto("/?from=bookmark")
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2F%3Ffrom%3Dbookmark/)
    await signIn(page, "support@example.com", DEMO_PASSWORD)
    await expect(page).toHaveURL(/\/\?from=bookmark$/)
    await expect(page.getByTestId("staff-role")).toHaveText("support")
  })

  test("the sign-in page lists the demo users", async ({ page }) => {
    await page.goto("/sign-in")
    for (const role of ROLES) await expect(page.getByText(emailOf(role), { exact: true })).toBeVisible()
  })

  test("the sign-in page shows the logo; robots.txt keeps crawlers out; the icon is served", async ({ page, request }) => {
    await page.goto("/sign-in")
    const logo = page.locator('main img[src="/logo.svg"]')
    await expect(logo).toBeVisible()
    expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0)
    const robots = await request.get("/robots.txt")
    expect(robots.status()).toBe(200)
    expect(await robots.text()).toMatch(/^User-agent: \*\nDisallow: \/$/m)
    const icon = await request.get("/icon.svg")
    expect(icon.status()).toBe(200)
    expect(icon.headers()["content-type"]).toContain("image/svg+xml")
  })

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
    expect(await res.json()).toEqual({ status: "ok", mode: "sandbox", database: "ok", limiter: "solo" })
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

test.describe("sign-out", () => {
  test("signing out ends the session", async ({ page }) => {
    await page.goto("/sign-in")
    await signIn(page, "viewer@example.com", DEMO_PASSWORD)
    await expect(page.getByTestId("staff-role")).toHaveText("viewer")
    await page.getByRole("button", { name: "Sign out" }).click()
    await expect(page).toHaveURL(/\/sign-in/)
    await page.goto("/")
    await expect(page).toHaveURL(/\/sign-in/)
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
