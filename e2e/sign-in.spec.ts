import { expect, test } from "@playwright/test"
import { DEMO_PASSWORD, ROLES, emailOf, signIn, storageStateOf } from "./helpers"

// Signing in with the demo users (the form, its refusals, the way back to the page asked
// for), what each role then sees, and signing out. Single sign-on: sso.spec.ts.

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
