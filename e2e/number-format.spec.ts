import { type Page, expect, test } from "@playwright/test"
import { type ConsolePage, SIGNED_IN_PAGES, openSettled, recordPages } from "./every-page"
import { storageStateOf } from "./helpers"

// The one number formatter's rules (lib/format.ts, docs/pages.md#numbers), checked on every
// page as a person sees it, at 1440 and 390 px:
// - every figure of 1,000 or more has thousands separators ("97454.297" fails);
// - an amount has its asset's decimals: 2 for USD, EUR and SGD, 8 for crypto ("639.999 ETH"
//   and "12000 USD" fail), 2 for a conversion's amount;
// - a price has its market's tick decimals: those of the service's tick_rate where the page
//   knows the market (data-tick), otherwise 2 from 100 up, 4 from 1 up, 6 below
//   ("95000.0000", "122,988.3" fail); "$" totals have 2;
// - a figure is padded up to those decimals and never past them; it has more only where
//   the service wrote more (a quote near a tick boundary): its last digit is then not 0.
// Pasting the console's own "2,487,371.39" into an amount field is accepted as 2487371.39.

const FIAT = new Set(["USD", "EUR", "SGD"])
const STABLECOINS = new Set(["USDP", "PYUSD", "USDG"])
const CRYPTO = ["BTC", "ETH", "PAXG", "BCH", "LTC", "LINK", "MATIC", "AAVE", "UNI"]

interface Breach {
  text: string
  rule: string
}

/** Every figure on the page that breaks a rule; runs in the browser. */
async function breaches(page: Page): Promise<Breach[]> {
  return page.evaluate(
    ({ fiat, stablecoins, crypto }) => {
      const out: { text: string; rule: string }[] = []
      const decimals = (figure: string) => (figure.includes(".") ? figure.length - figure.indexOf(".") - 1 : 0)
      const grouped = /^-?\d{1,3}(,\d{3})*(\.\d+)?$/
      // Padded up to the rule's decimals, never past them; more only as digits the service wrote (a last digit not 0).
      const fits = (figure: string, places: number) => decimals(figure) === places || (decimals(figure) > places && !figure.endsWith("0"))
      const tick = (figure: string) => {
        const size = Math.abs(Number(figure.replaceAll(",", "")))
        return size >= 100 ? 2 : size >= 1 ? 4 : 6
      }
      const fiatSet = new Set(fiat)
      const stableSet = new Set(stablecoins)
      // 1. Marked amounts and prices: exactly the formatter's output.
      for (const el of document.querySelectorAll<HTMLElement>("[data-num]")) {
        const kind = el.dataset["num"]
        const figure = (el.firstChild?.textContent ?? el.textContent ?? "").trim().split(/\s/)[0] ?? ""
        if (!figure || figure === "—") continue
        if (!grouped.test(figure)) {
          out.push({ text: figure, rule: `${kind} not grouped in threes` })
          continue
        }
        if (kind === "amount") {
          const asset = el.dataset["asset"]
          const places = el.dataset["places"] ? Number(el.dataset["places"]) : asset ? (fiatSet.has(asset) ? 2 : 8) : null
          if (places !== null && !fits(figure, places)) out.push({ text: `${figure} ${asset ?? ""}`, rule: `amount needs ${places} decimals` })
        } else if (kind === "price") {
          const rate = el.dataset["tick"]
          const places = rate ? decimals(rate) : tick(figure)
          if (!fits(figure, places)) out.push({ text: figure, rule: `price needs ${places} decimals` })
        } else if (kind === "axis-price") {
          if (![2, 4, 6].includes(decimals(figure))) out.push({ text: figure, rule: "axis price needs its market's tick decimals" })
        }
      }
      // 2. All visible text (SVG labels included): no long figure without separators, and an
      //    amount written beside its asset has that asset's decimals.
      const texts = [document.body.innerText, ...[...document.querySelectorAll("svg text")].map((t) => t.textContent ?? "")]
      for (const text of texts) {
        for (const m of text.matchAll(/(?<![\w.,:/#+…-])\d{4,}(\.\d+)?(?![\w:/…-])/g)) out.push({ text: m[0], rule: "no thousands separators" })
        for (const m of text.matchAll(/(?<![\w.,:/#-])(\d{1,3}(?:,\d{3})*(?:\.\d+)?) ([A-Z]{3,5})\b(?! per)/g)) {
          const [, figure = "", asset = ""] = m
          if (stableSet.has(asset)) continue // 8 decimals as a balance, 2 as a conversion's amount: the marked elements tell them apart
          const places = fiatSet.has(asset) ? 2 : crypto.includes(asset) ? 8 : null
          if (places !== null && !fits(figure, places)) out.push({ text: m[0], rule: `${asset} needs ${places} decimals` })
        }
        for (const m of text.matchAll(/\$(\d{1,3}(?:,\d{3})*(?:\.\d+)?)/g)) {
          if (decimals(m[1] ?? "") !== 2) out.push({ text: m[0], rule: "USD needs 2 decimals" })
        }
      }
      return out
    },
    { fiat: [...FIAT], stablecoins: [...STABLECOINS], crypto: CRYPTO },
  )
}

async function expectFormatted(page: Page, target: ConsolePage): Promise<void> {
  await openSettled(page, target)
  // The desk's prices arrive after the page: wait for the first held price.
  if (target.path === "/trade") await expect(page.locator("[data-testid^='ask-'] [data-num='price']").first()).toBeVisible()
  const found = await breaches(page)
  expect(found, `${target.path}: figures that break the formatter's rules`).toEqual([])
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`every page at ${viewport.width} px, signed in as admin`, () => {
    test.use({ storageState: storageStateOf("admin"), viewport })

    let records: ConsolePage[] = []
    test.beforeAll(async ({ browser }, testInfo) => {
      const baseURL = String(testInfo.project.use.baseURL)
      const context = await browser.newContext({ baseURL, storageState: storageStateOf("admin") })
      try {
        records = await recordPages(context.request, baseURL)
      } finally {
        await context.close()
      }
    })

    for (const target of SIGNED_IN_PAGES) {
      test(`${target.path}: every figure follows the formatter's rules`, async ({ page }) => {
        await expectFormatted(page, target)
      })
    }

    test("record, intent and search pages: every figure follows the formatter's rules", async ({ page }) => {
      for (const target of records) await expectFormatted(page, target)
    })
  })
}

test.describe("the checker itself", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("finds each of the issue's five formats", async ({ page }) => {
    await page.goto("/")
    await page.evaluate(() => {
      const box = document.createElement("div")
      box.innerHTML = `<p>122,988.3 beside <span data-num="price">122,988.3</span></p><p>639.999 ETH</p><p>97454.297</p>
        <p><span data-num="price">95000.0000</span></p><p>12000 USD</p><p><span data-num="amount" data-asset="USD">75</span></p>`
      document.body.append(box)
    })
    const found = await breaches(page)
    const texts = found.map((b) => b.text)
    for (const text of ["122,988.3", "639.999 ETH", "97454.297", "95000.0000", "12000", "75 USD"]) expect(texts).toContain(text)
  })
})

test.describe("amount fields", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("pasting the console's own 2,487,371.39 into a conversion amount is accepted as 2487371.39", async ({ page }) => {
    await page.goto("/conversions/new")
    const amount = page.getByLabel(/^Amount/)
    await amount.focus()
    await amount.evaluate((input) => {
      const data = new DataTransfer()
      data.setData("text/plain", "2,487,371.39")
      input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }))
    })
    await expect(amount).toHaveValue("2487371.39")
    await amount.blur()
    await expect(amount).toHaveAttribute("aria-invalid", "false")
  })
})

test.describe("CSV exports", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("amounts are plain decimals with their asset's fixed decimals", async ({ page, baseURL }) => {
    await recordPages(page.request, String(baseURL))
    const profiles = (await (await page.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
    const profile = profiles.items.find((p) => p.nickname === "Treasury") ?? profiles.items[0]!
    const executions = await (await page.request.get(`/api/profiles/${profile.id}/quote-executions/export`)).text()
    const [header, ...rows] = executions.trim().split("\r\n").map((line) => line.split(","))
    const col = (name: string) => header!.indexOf(name)
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row[col("quote_amount")]).toMatch(/^\d+\.\d{2}$/)
      expect(row[col("base_amount")]).toMatch(/^\d+\.\d{8}$/)
      expect(row[col("price")]).toMatch(/^\d+\.\d{2,}$/)
    }
    const conversions = await (await page.request.get("/api/conversions/export")).text()
    const [cHeader, ...cRows] = conversions.trim().split("\r\n").map((line) => line.split(","))
    expect(cRows.length).toBeGreaterThan(0)
    for (const row of cRows) expect(row[cHeader!.indexOf("amount")]).toMatch(/^\d+\.\d{2}$/)
  })
})
