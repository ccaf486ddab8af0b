import { type Browser, type Page, expect, test } from "@playwright/test"

// Single sign-on against a real OpenID provider (panva's oidc-provider at its standard
// settings, scripts/e2e-oidc-provider.mjs): the email and the role reach the console only
// through userinfo. Driven through the provider's own sign-in, consent and sign-out pages.

const PROVIDER = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100) + 70}`
const ROLES = ["viewer", "support", "trader", "admin"] as const

/** Signs `login` in at the provider from the console's sign-in page; ends back at the console. */
async function signInWithProvider(page: Page, login: string): Promise<void> {
  await page.goto("/sign-in")
  await page.getByRole("button", { name: "Sign in with single sign-on" }).click()
  await page.waitForURL((url) => url.origin === PROVIDER)
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill("any-password")
  await page.getByRole("button", { name: "Sign-in" }).click()
  // The provider asks for consent to release the claims to the console.
  const consent = page.getByRole("button", { name: "Continue" })
  const back = page.getByTestId("staff-role").or(page.getByRole("alert"))
  await expect(consent.or(back).first()).toBeVisible()
  if (await consent.isVisible()) await consent.click()
  await expect(back.first()).toBeVisible()
}

async function newPage(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({ baseURL })
  return context.newPage()
}

async function staffOf(page: Page): Promise<unknown> {
  const res = await page.request.get("/api/auth/session")
  const session = (await res.json()) as { staff?: unknown }
  return session.staff ?? null
}

test.describe("single sign-on with a real OpenID provider", () => {
  for (const role of ROLES) {
    test(`the provider's ${role} signs in as ${role}`, async ({ browser, baseURL }) => {
      const page = await newPage(browser, baseURL)
      await signInWithProvider(page, role)
      await expect(page.getByTestId("staff-role")).toHaveText(role)
      await expect(page.getByTestId("staff-email")).toHaveText(`sso-${role}@example.test`)
      expect(await staffOf(page)).toEqual({ email: `sso-${role}@example.test`, role })
      await page.context().close()
    })
  }

  const refusals = [
    { login: "norole", message: "Your account has no console role: ask an admin to give you one." },
    { login: "unknownrole", message: "Your account's console role is not one this console knows: ask an admin." },
    { login: "unverified", message: "Your provider has not verified your email address: verify it there, then sign in again." },
    { login: "manyroles", message: "Your account has several console roles: ask an admin to leave you one." },
  ]
  for (const { login, message } of refusals) {
    test(`the provider's ${login} user is refused with a message and no session`, async ({ browser, baseURL }) => {
      const page = await newPage(browser, baseURL)
      await signInWithProvider(page, login)
      await expect(page).toHaveURL(/\/sign-in\?error=Sso/)
      await expect(page.getByRole("form", { name: "Sign in" }).getByRole("alert")).toHaveText(message)
      expect(await staffOf(page)).toBeNull()
      await page.goto("/trade")
      await expect(page).toHaveURL(/\/sign-in/)
      await page.context().close()
    })
  }

  test("sign-out ends the console session at the provider too, and signing in again asks the provider again", async ({ browser, baseURL }) => {
    const page = await newPage(browser, baseURL)
    await signInWithProvider(page, "trader")
    await expect(page.getByTestId("staff-role")).toHaveText("trader")

    const endSession: URL[] = []
    page.on("request", (request) => {
      const url = new URL(request.url())
      if (url.origin === PROVIDER && url.pathname === "/session/end") endSession.push(url)
    })
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("button", { name: "Yes, sign me out" }).click()
    await expect(page).toHaveURL(new RegExp(`^${baseURL}/sign-in`))
    expect(endSession).toHaveLength(1)
    expect(endSession[0]!.searchParams.get("id_token_hint")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(endSession[0]!.searchParams.get("post_logout_redirect_uri")).toBe(`${baseURL}/sign-in`)
    expect(await staffOf(page)).toBeNull()

    // The provider's session is over too: single sign-on shows its sign-in page again.
    await page.getByRole("button", { name: "Sign in with single sign-on" }).click()
    await page.waitForURL((url) => url.origin === PROVIDER)
    await expect(page.locator('input[name="login"]')).toBeVisible()
    await page.context().close()
  })

  test("sign-ins, refusals and sign-outs are on the audit trail with the provider's subject", async ({ browser, baseURL }) => {
    const page = await newPage(browser, baseURL)
    await signInWithProvider(page, "admin")
    await page.goto("/audit")
    await page.getByRole("link", { name: "Sign-in events" }).click()
    const events = page.getByTestId("sign-in-event")
    await expect(events.filter({ hasText: "Sign-in failed" }).filter({ hasText: "subject norole" }).first()).toContainText("no console role")
    await expect(events.filter({ hasText: "Sign-in failed" }).filter({ hasText: "subject unverified" }).first()).toContainText("not verified")
    await expect(events.filter({ hasText: "Signed in" }).filter({ hasText: "subject admin" }).first()).toContainText("sso-admin@example.test")
    await expect(events.filter({ hasText: "Signed out" }).filter({ hasText: "subject trader" }).first()).toContainText("sso-trader@example.test")
    await page.context().close()
  })
})
