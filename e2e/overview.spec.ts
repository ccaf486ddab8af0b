import AxeBuilder from "@axe-core/playwright"
import { type Page, expect, test } from "@playwright/test"
import { toDecimal } from "@/lib/money"
import { storageStateOf } from "./helpers"

// The overview and the /trade chart against the embedded sandbox: real balances, quotes,
// history and executions; nothing mocked.

interface Profile {
  id: string
  nickname: string
}

test.describe("the overview at /", () => {
  test.use({ storageState: storageStateOf("viewer") })

  test("shows holdings valued in USD, the allocation chart and the feed; the numbers are also a table", async ({ page }) => {
    await page.goto("/")
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible()
    await expect(page.getByTestId("total-usd")).toHaveText(/^\$\d{1,3}(,\d{3})*\.\d{2}$/)
    await expect(page.getByTestId("profile-totals").locator("li")).not.toHaveCount(0)
    const chart = page.getByTestId("allocation-chart")
    await expect(chart.locator("svg[role=img] path").first()).toBeVisible()
    await expect(chart.locator("svg title")).toHaveText(/Allocation by asset: .*USD/)
    await expect(page.getByTestId("feed")).toBeVisible()
    await expect(page.getByTestId("changes").locator("tbody tr")).not.toHaveCount(0)
    await page.getByText("Show holdings as a table").click()
    await expect(page.getByTestId("holdings-table").locator("tbody tr")).not.toHaveCount(0)
  })

  test("an execution placed in another browser context appears in the feed and changes the totals without a reload", async ({
    page,
    browser,
    baseURL,
  }) => {
    await page.goto("/")
    await page.getByText("Show holdings as a table").click()
    await page.evaluate(() => {
      ;(window as unknown as { sameDocument: boolean }).sameDocument = true
    })
    const trader = await browser.newContext({ storageState: storageStateOf("trader"), baseURL: baseURL!, extraHTTPHeaders: { origin: baseURL! } })
    try {
      const { items: profiles } = (await (await trader.request.get("/api/profiles")).json()) as { items: Profile[] }
      const treasury = profiles.find((p) => p.nickname === "Treasury")!
      const ethBefore = await holdingAmount(page, "Treasury", "ETH")
      const totalBefore = await page.getByTestId("total-usd").textContent()

      const quotes = (await (await trader.request.get("/api/quotes?markets=ETHUSD")).json()) as { items: { id: string; side: string }[] }
      const buy = quotes.items.find((q) => q.side === "BUY")!
      const placed = await trader.request.post(`/api/profiles/${treasury.id}/quote-executions`, {
        data: { quote_id: buy.id, base_amount: "0.5", ref_id: crypto.randomUUID() },
      })
      expect(placed.status()).toBeLessThan(300)
      const execution = (await placed.json()) as { id: string }

      const item = page.getByTestId("feed").locator(`[data-id="${execution.id}"]`)
      await expect(item).toBeVisible({ timeout: 15_000 })
      await expect(item).toContainText(/BUY 0\.50* ETH/)
      await expect(item.getByTestId("status")).toHaveText(/CREATED|SETTLED/)
      await expect
        .poll(async () => toDecimal(await holdingAmount(page, "Treasury", "ETH")).toString(), { timeout: 15_000 })
        .toBe(toDecimal(ethBefore).plus("0.5").toString())
      await expect(page.getByTestId("total-usd")).not.toHaveText(totalBefore ?? "")
      await expect(page.getByTestId("activity-executions").getByTestId("count")).not.toHaveText("0")
      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true)
    } finally {
      await trader.close()
    }
  })

  test("screenshots of / in light and dark go with the report", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 1000 })
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto("/")
      await expect(page.getByTestId("allocation-chart").locator("svg path").first()).toBeVisible()
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
      // Attached, so the HTML report (playwright-report/<port>/) carries both.
      const file = testInfo.outputPath(`overview-${scheme}.png`)
      await page.screenshot({ path: file, fullPage: true })
      await testInfo.attach(`overview-${scheme}`, { path: file, contentType: "image/png" })
      // The dark theme really is dark: the page's background is darker than mid-grey.
      const lightness = await page.evaluate((bg) => {
        const c = document.createElement("canvas").getContext("2d")!
        c.fillStyle = bg
        c.fillRect(0, 0, 1, 1)
        const [r, g, b] = c.getImageData(0, 0, 1, 1).data
        return (r! + g! + b!) / 3
      }, background)
      if (scheme === "dark") expect(lightness).toBeLessThan(80)
      else expect(lightness).toBeGreaterThan(200)
      // Readable in both themes: axe finds no serious or critical violation (contrast included).
      const results = await new AxeBuilder({ page }).analyze()
      const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      expect(serious.map((v) => `${scheme} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([])
    }
  })

  test("holds its layout at 1024 px: nothing wider than the window", async ({ page }) => {
    await page.setViewportSize({ width: 1024, height: 800 })
    await page.goto("/")
    await expect(page.getByTestId("allocation-chart").locator("svg path").first()).toBeVisible()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024)
  })
})

test.describe("the price chart on /trade", () => {
  test.use({ storageState: storageStateOf("viewer") })

  test("switches between 1 h, 24 h, 7 d and 30 d of the service's history", async ({ page }) => {
    await page.goto("/trade")
    const panel = page.getByTestId("price-chart-panel")
    await expect(panel).toHaveAttribute("data-range", "24h")
    await expect(panel.locator("svg[role=img] path")).toBeVisible()
    const points24h = Number(await panel.locator("svg[role=img]").getAttribute("data-points"))
    expect(points24h).toBeGreaterThan(250)
    for (const [label, range] of [["7 d", "7d"], ["30 d", "30d"], ["1 h", "1h"]] as const) {
      await page.getByRole("group", { name: "Chart range" }).getByRole("button", { name: label }).click()
      await expect(page.getByRole("button", { name: label })).toHaveAttribute("aria-pressed", "true")
      await expect(panel).toHaveAttribute("data-range", range)
      await expect(panel.locator("figcaption")).toContainText(`over ${label}`)
    }
    // 1 h by the minute, then the live mids as the board's quotes arrive.
    await expect.poll(async () => Number(await panel.locator("svg[role=img]").getAttribute("data-points"))).toBeGreaterThan(55)
    // The same points as a table, built when it is opened.
    await expect(panel.locator("tbody tr")).toHaveCount(0)
    await panel.getByText("Show prices as a table").click()
    await expect.poll(() => panel.locator("tbody tr").count()).toBeGreaterThan(55)
  })
})

test.describe("the reviewed quote on the /trade chart", () => {
  test.use({ storageState: storageStateOf("trader") })

  test("is marked on the chart while the trader reviews it", async ({ page }) => {
    await page.goto("/trade")
    await expect(page.getByTestId("price-chart-panel")).toBeVisible()
    await page.getByRole("button", { name: /^Buy/ }).first().click()
    await expect(page.getByTestId("chart-marker")).toContainText(/Reviewing BUY/)
  })
})

/** The amount of `asset` in `profile` from the holdings table, "0" when the profile holds none. */
async function holdingAmount(page: Page, profile: string, asset: string): Promise<string> {
  const rows = page.getByTestId("holdings-table").locator("tbody tr")
  const texts = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")))
  const row = texts.find((cells) => cells[0] === profile && cells[1] === asset)
  // As shown ("1,640.50000000"), without the thousands separators.
  return (row?.[2] ?? "0").replace(/,/g, "")
}
