import { type Page, expect, test } from "@playwright/test"
import { type ConsolePage, SIGNED_IN_PAGES, SIGN_IN_PAGE, openSettled, recordPages } from "./every-page"
import { storageStateOf } from "./helpers"

// A 390 × 844 phone: no page scrolls sideways (wide tables scroll inside their own box)
// and the navigation sits behind a "Menu" button that works from the keyboard.

const PHONE = { width: 390, height: 844 }

/** How far the page itself scrolls sideways, in CSS pixels (0: it does not). */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
}

async function expectNoSidewaysScroll(page: Page, target: ConsolePage): Promise<void> {
  await openSettled(page, target)
  expect(await sidewaysOverflow(page), `${target.path} scrolls sideways`).toBeLessThanOrEqual(0)
}

test.describe("at 390 × 844, signed in as admin", () => {
  test.use({ storageState: storageStateOf("admin"), viewport: PHONE })

  for (const target of SIGNED_IN_PAGES) {
    test(`${target.path} does not scroll sideways`, async ({ page }) => {
      await expectNoSidewaysScroll(page, target)
    })
  }

  test("an execution's and a conversion's record pages do not scroll sideways", async ({ page, baseURL }) => {
    for (const target of await recordPages(page.request, String(baseURL))) await expectNoSidewaysScroll(page, target)
  })

  test("a wide table scrolls inside its box, screen-reader text included", async ({ page }) => {
    await openSettled(page, { path: "/executions", ready: "execution-row" })
    const box = page.getByTestId("execution-row").first().locator("xpath=ancestor::div[contains(@class,'overflow-x-auto')][1]")
    const sizes = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, position: getComputedStyle(el).position }))
    expect(sizes.position).toBe("relative")
    // The table is wider than the phone: its box scrolls, the page does not.
    expect(sizes.scroll).toBeGreaterThan(sizes.client)
    expect(sizes.client).toBeLessThanOrEqual(PHONE.width)
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
  })

  test("the menu opens from the keyboard, closes on Escape and after navigating", async ({ page }) => {
    await page.goto("/")
    const nav = page.getByRole("navigation", { name: "Main" })
    const menu = nav.getByRole("button", { name: "Menu" })
    const executions = nav.getByRole("link", { name: "Executions" })
    await expect(menu).toHaveAttribute("aria-expanded", "false")
    await expect(executions).toBeHidden()
    // From the top of the page: the skip link, the logo, then the menu button.
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await expect(menu).toBeFocused()
    await page.keyboard.press("Enter")
    await expect(menu).toHaveAttribute("aria-expanded", "true")
    await expect(executions).toBeVisible()
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
    await page.keyboard.press("Escape")
    await expect(menu).toHaveAttribute("aria-expanded", "false")
    await expect(executions).toBeHidden()
    await expect(menu).toBeFocused()
    await page.keyboard.press("Space")
    await expect(executions).toBeVisible()
    // Trade, then Executions.
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await expect(executions).toBeFocused()
    await page.keyboard.press("Enter")
    await expect(page).toHaveURL(/\/executions$/)
    await expect(page.getByRole("heading", { level: 1, name: /Executions/ })).toBeVisible()
    await expect(menu).toHaveAttribute("aria-expanded", "false")
    await expect(executions).toBeHidden()
  })

  test("who is signed in and the sign-out button fit on the screen", async ({ page }) => {
    await page.goto("/")
    for (const item of [page.getByTestId("staff-email"), page.getByTestId("staff-role"), page.getByRole("button", { name: "Sign out" })]) {
      const box = await item.boundingBox()
      expect(box, "visible").not.toBeNull()
      expect(box!.x).toBeGreaterThanOrEqual(0)
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width)
    }
  })
})

test.describe("at 390 × 844, signed out", () => {
  test.use({ viewport: PHONE })

  test("/sign-in does not scroll sideways", async ({ page }) => {
    await expectNoSidewaysScroll(page, SIGN_IN_PAGE)
  })
})

test.describe("on a wide screen", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("the navigation is inline, without a menu button", async ({ page }) => {
    await page.goto("/")
    const nav = page.getByRole("navigation", { name: "Main" })
    await expect(nav.getByRole("button", { name: "Menu" })).toBeHidden()
    await expect(nav.getByRole("link", { name: "Executions" })).toBeVisible()
  })
})

test.describe("at 390 × 844 on a touch screen, signed in as admin", () => {
  test.use({ storageState: storageStateOf("admin"), viewport: PHONE, isMobile: true, hasTouch: true })

  test("the banner and header leave the page most of the screen, and no key hint is shown", async ({ page }) => {
    await page.goto("/trade")
    await expect(page.locator("[data-testid^='ask-'] [data-num='price']").first()).toBeVisible()
    const banner = await page.getByRole("region", { name: "Environment" }).boundingBox()
    const header = await page.locator("header").first().boundingBox()
    expect(banner!.height, "banner height").toBeLessThanOrEqual(32)
    // 230 px before (issue 30); now one banner line and a header of the logo and menu, the search, and who is signed in.
    expect(banner!.height + header!.height, "banner and header").toBeLessThanOrEqual(150)
    // The desk's B, S, 1–9 and ? and the search's / are for keyboards.
    for (const hint of await page.locator(".key-hint").all()) await expect(hint).toBeHidden()
    await expect(page.getByTestId("shortcuts-button")).toBeHidden()
  })

  test("the markets grid has even rows, and no price is cut off", async ({ page }) => {
    await page.goto("/trade")
    await expect(page.locator("[data-testid^='ask-'] [data-num='price']").first()).toBeVisible()
    const grid = page.getByTestId("price-grid")
    const heights = await grid.locator("tbody tr").evaluateAll((rows) => rows.map((r) => Math.round(r.getBoundingClientRect().height)))
    expect(heights.length).toBeGreaterThan(5)
    expect(new Set(heights).size, `row heights ${heights.join(", ")}`).toBe(1)
    // Every price is whole inside its cell.
    const clipped = await grid.locator("[data-num='price']").evaluateAll((spans) =>
      spans.filter((s) => {
        const cell = s.closest("td")!.getBoundingClientRect()
        const r = s.getBoundingClientRect()
        return r.left < cell.left - 0.5 || r.right > cell.right + 0.5
      }).length,
    )
    expect(clipped).toBe(0)
  })

  // The 24 h change sits under the market name below 640 px, so market, bid and ask fit.
  test("the markets grid fits its box: no column scrolled out of view", async ({ page }) => {
    await page.goto("/trade")
    await expect(page.locator("[data-testid^='ask-'] [data-num='price']").first()).toBeVisible()
    const box = page.getByTestId("price-grid").locator("xpath=..")
    const sizes = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }))
    expect(sizes.scroll).toBeLessThanOrEqual(sizes.client)
    // The 24 h change is still there, under each market's name.
    await expect(page.getByTestId("change-narrow").first()).toBeVisible()
    await expect(page.getByTestId("change-narrow").first()).toHaveText(/%|n\/a/)
  })
})

test.describe("with a mouse at 1440 px", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("the key hints are shown", async ({ page }) => {
    await page.goto("/trade")
    await expect(page.getByTestId("shortcuts-button")).toBeVisible()
    await expect(page.locator("[data-testid='price-grid'] kbd.key-hint").first()).toBeVisible()
  })
})
