import { type Page, expect, test } from "@playwright/test"
import { type ConsolePage, SIGNED_IN_PAGES, SIGN_IN_PAGE, openSettled, recordPages } from "./every-page"
import { storageStateOf } from "./helpers"

// Chromium reports no Content-Security-Policy violation on any page: every violation event
// the page fires (recorded from before its first script) and every console message about
// the policy count, including ones a library catches and swallows (zod's `new Function` probe).

declare global {
  interface Window {
    __cspViolations?: string[]
  }
}

async function recordViolations(page: Page): Promise<string[]> {
  const messages: string[] = []
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) messages.push(`console: ${message.text()}`)
  })
  await page.addInitScript(() => {
    window.__cspViolations = []
    document.addEventListener(
      "securitypolicyviolation",
      (event) => {
        window.__cspViolations?.push(`${event.violatedDirective}: ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`)
      },
      true,
    )
  })
  return messages
}

/** Opens each page and lets it run for a moment after its data arrived: charts, polling and lazy chunks included. */
async function violationsOn(page: Page, pages: readonly ConsolePage[], messages: string[]): Promise<string[]> {
  const found: string[] = []
  for (const target of pages) {
    messages.length = 0
    await openSettled(page, target)
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)))
    const events = await page.evaluate(() => window.__cspViolations ?? [])
    for (const v of [...events, ...messages]) found.push(`${target.path} ${v}`)
  }
  return found
}

test.describe("signed in as admin", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("no page reports a CSP violation", async ({ page, baseURL }) => {
    const records = await recordPages(page.request, String(baseURL))
    const messages = await recordViolations(page)
    expect(await violationsOn(page, [...SIGNED_IN_PAGES, ...records], messages)).toEqual([])
  })
})

test("the sign-in page, signed out, reports no CSP violation", async ({ page }) => {
  const messages = await recordViolations(page)
  expect(await violationsOn(page, [SIGN_IN_PAGE], messages)).toEqual([])
})
