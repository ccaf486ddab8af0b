import { type APIRequestContext, type Page, expect, test } from "@playwright/test"
import { openDesk, review, startTrade } from "./desk"
import { storageStateOf } from "./helpers"
import { adminApi } from "./policy"

// A trader places a trade on /trade and goes to another page before it settles; a toast
// says it settled there, with a link to it, and neither another tab of the same browser
// nor a reload says so again. The sandbox's settle delay is raised for the test so that
// the settlement certainly happens after the move.

const SETTLE_DELAY_MS = 8_000

function origin(): string {
  return String(test.info().project.use.baseURL)
}

async function setSettleDelay(admin: APIRequestContext, ms: number): Promise<number> {
  const before = (await (await admin.get("/api/sandbox/settings")).json()) as { settle_delay_ms: number }
  const res = await admin.put("/api/sandbox/settings", { data: { settle_delay_ms: ms } })
  expect(res.status(), await res.text()).toBe(200)
  return before.settle_delay_ms
}

/** Counts the page's reads of GET /api/notifications from now on: asked, and answered or failed. */
function notificationReads(page: Page): { asked: () => number; done: () => number } {
  let asked = 0
  let done = 0
  const mine = (url: string) => new URL(url).pathname === "/api/notifications"
  page.on("request", (r) => void (mine(r.url()) && asked++))
  page.on("requestfinished", (r) => void (mine(r.url()) && done++))
  page.on("requestfailed", (r) => void (mine(r.url()) && done++))
  return { asked: () => asked, done: () => done }
}

/**
 * Resolves once the page has caught up with its notifications: its stream carries them
 * (pushed from then on; the page reads once what came before) and every read it asked for
 * is answered.
 */
async function caughtUp(page: Page, reads: ReturnType<typeof notificationReads>): Promise<void> {
  await expect(page.getByTestId("console-stream")).toHaveAttribute("data-topics", /(^|,)notifications(,|$)/)
  await expect.poll(() => reads.asked() > 0 && reads.done() === reads.asked()).toBe(true)
}

test.describe("trader", () => {
  test.use({ storageState: storageStateOf("trader") })

  test("a settlement on another page is announced once, with a working link, without taking the focus", async ({ page, context }) => {
    const admin = await adminApi(origin())
    const before = await setSettleDelay(admin, SETTLE_DELAY_MS)
    try {
      await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
      await startTrade(page, "BUY", "crypto", "0.001")
      const dialog = await review(page)
      await dialog.getByTestId("confirm-button").click()
      const result = page.getByTestId("result")
      await expect(result.getByTestId("status")).toHaveText("CREATED")
      const id = ((await result.getByTestId("record-id").textContent()) ?? "").trim()
      expect(id).toMatch(/^[0-9a-f-]{36}$/)

      // Off to the executions list before it settles; the keyboard is in the filters.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Executions", exact: true }).click()
      await expect(page).toHaveURL(/\/executions$/)
      const focused = page.getByRole("main").locator("input, select").first()
      await focused.focus()

      const toast = page.getByTestId("notification-toast").filter({ hasText: id })
      await expect(toast).toBeVisible({ timeout: SETTLE_DELAY_MS + 20_000 })
      await expect(toast).toContainText("Execution settled")
      await expect(page.getByRole("status").filter({ hasText: id })).toHaveCount(1)
      // The toast did not take the focus.
      await expect(focused).toBeFocused()

      // Reached with the keyboard alone: Tab from the top of the page to the toast's link, Enter opens the record.
      await page.getByRole("link", { name: "Skip to content" }).focus()
      let reached = false
      for (let i = 0; i < 40 && !reached; i++) {
        await page.keyboard.press("Tab")
        reached = await page.evaluate(
          (recordId) => document.activeElement?.closest("[data-testid=notification-toast]")?.textContent?.includes(recordId) ?? false,
          id,
        )
      }
      expect(reached).toBe(true)
      await expect(toast.getByRole("link", { name: "View execution" })).toBeFocused()
      await page.keyboard.press("Enter")
      await expect(page).toHaveURL(new RegExp(`/executions/[^/]+/${id}$`))
      await expect(page.getByTestId("status").first()).toHaveText("SETTLED")

      // Another tab of the same browser, and then the first one reloaded: neither announces it again.
      const second = await context.newPage()
      const secondReads = notificationReads(second)
      await second.goto("/executions")
      await caughtUp(second, secondReads)
      await expect(second.getByTestId("notification-toast").filter({ hasText: id })).toHaveCount(0)
      await second.close()

      const reads = notificationReads(page)
      await page.reload()
      await caughtUp(page, reads)
      await expect(page.getByTestId("notification-toast").filter({ hasText: id })).toHaveCount(0)
    } finally {
      await setSettleDelay(admin, before)
      await admin.dispose()
    }
  })
})
