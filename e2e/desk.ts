import { type Page, expect } from "@playwright/test"

// The trade desk's steps, shared by the specs that place a trade through the page.

export async function openDesk(page: Page, options: { profile?: string; market?: string } = {}): Promise<void> {
  await page.goto("/trade")
  await expect(page.getByRole("heading", { name: "Trade", level: 1 })).toBeVisible()
  const picker = page.getByLabel("Profile", { exact: true })
  await expect(picker).toBeEnabled()
  if (options.profile) await picker.selectOption({ label: options.profile })
  if (options.market) await chooseMarket(page, options.market)
  await expect(page.getByTestId("quote-BUY").getByTestId("quote-price")).toBeVisible()
  await deskKeysWork(page)
  await buyQuoteLive(page)
}

/**
 * B chooses the board's buy quote only while it is live: B does nothing on an expired one
 * (trade.spec). After a load or a reload the first quotes shown can be the server's, already
 * past their hold on a busy machine, until the next ones arrive (at load 11 a B was lost so).
 */
export async function buyQuoteLive(page: Page): Promise<void> {
  await expect(page.getByTestId("quote-BUY")).toHaveAttribute("data-live", "true")
}

/**
 * The desk listens for its keys (B, S, arrows, digits) once React has hydrated it: the
 * server's HTML already shows the profile and the prices, and a key pressed before then
 * does nothing (at load 12 a test's B was lost so).
 */
export async function deskKeysWork(page: Page): Promise<void> {
  await expect(page.getByTestId("trade-desk")).toHaveAttribute("data-keys", "on")
}

/** Selects a market in the price grid: its name is a button; the ticket follows. */
export async function chooseMarket(page: Page, market: string): Promise<void> {
  await page.getByTestId(`market-${market}`).getByRole("button", { name: market, exact: true }).click()
  await expect(page.getByRole("heading", { name: `Order ticket · ${market}` })).toBeVisible()
}

/** Chooses the board's quote of `side` and types the amount; returns the form. */
export async function startTrade(page: Page, side: "BUY" | "SELL", mode: "crypto" | "fiat", amount: string) {
  await page.getByTestId(`choose-${side}`).click()
  const form = page.getByTestId("execute-form")
  await expect(form).toBeVisible()
  await form.getByTestId(`mode-${mode}`).check()
  await form.getByTestId("amount").fill(amount)
  return form
}

export async function review(page: Page) {
  await page.getByTestId("review-button").click()
  const dialog = page.getByRole("dialog")
  await expect(dialog.getByTestId("review")).toBeVisible()
  return dialog
}
