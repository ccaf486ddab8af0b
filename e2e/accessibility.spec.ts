import { expect, test } from "@playwright/test"
import { expectNoSeriousA11yViolations } from "./axe"
import { type ConsolePage, SIGNED_IN_PAGES, SIGN_IN_PAGE, openSettled, recordPages } from "./every-page"
import { storageStateOf } from "./helpers"

// axe on every console page (e2e/every-page.ts lists them), once its data has arrived: no
// serious or critical violation anywhere. Signed in as the admin, who sees every page whole;
// the sign-in page signed out.

async function check(page: Parameters<typeof openSettled>[0], target: ConsolePage, testInfo: Parameters<typeof expectNoSeriousA11yViolations>[1]) {
  await openSettled(page, target)
  await expectNoSeriousA11yViolations(page, testInfo, target.path)
}

test.describe("signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } })
  test("the sign-in page has no serious or critical axe violations", async ({ page }, testInfo) => {
    await check(page, SIGN_IN_PAGE, testInfo)
  })
})

test.describe("signed in", () => {
  test.use({ storageState: storageStateOf("admin") })

  // Records first, so the lists (which wait for a row) and the record pages have something to show.
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
    test(`${target.path}: no serious or critical axe violations`, async ({ page }, testInfo) => {
      await check(page, target, testInfo)
    })
  }

  test("record pages (an execution, a conversion, an intent, search results): no serious or critical axe violations", async ({ page }, testInfo) => {
    expect(records.length).toBeGreaterThanOrEqual(4)
    for (const target of records) await check(page, target, testInfo)
  })
})
