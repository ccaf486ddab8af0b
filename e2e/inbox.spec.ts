import { type APIRequestContext, type Page, expect, request as playwrightRequest, test } from "@playwright/test"
import { signIn, storageStateOf } from "./helpers"
import canaries from "./canaries.json" with { type: "json" }
import { adminApi, putPolicy } from "./policy"

// The inbox end to end: the bell's unread count in the header, the drawer, mark read, the
// deep link, and an item that resolves itself when another checker approves the request.
// checker2@example.com is a second trader (CONSOLE_USERS of the e2e server, playwright.config.ts).

const CHECKER2 = { email: "checker2@example.com", password: "demo-password-checker2" }

function origin(): string {
  return String(test.info().project.use.baseURL)
}

async function traderApi(): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL: origin(), storageState: storageStateOf("trader"), extraHTTPHeaders: { origin: origin() } })
}

/** The trader asks for a 12,000 USD conversion (over the default 10,000 threshold); answers the request's id. */
async function askForApproval(api: APIRequestContext): Promise<string> {
  const profiles = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const profile = profiles.items.find((p) => p.nickname === "Treasury") ?? profiles.items[0]
  const res = await api.post("/api/conversions", {
    data: { profile_id: profile!.id, amount: "12000.00", source_asset: "USD", target_asset: "USDP", ref_id: crypto.randomUUID() },
  })
  expect(res.status(), await res.text()).toBe(202)
  const body = (await res.json()) as { id: string }
  return body.id
}

test.describe("the inbox", () => {
  test.beforeAll(async () => {
    const admin = await adminApi(origin())
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    await putPolicy(admin, DEFAULT_POLICY)
    await admin.dispose()
  })

  test("the bell counts a request waiting for me; the drawer shows it; mark read; it resolves itself when another checker approves", async ({ browser }) => {
    const context = await browser.newContext({ baseURL: origin() })
    const page: Page = await context.newPage()
    await page.goto("/sign-in")
    await signIn(page, CHECKER2.email, CHECKER2.password)
    await expect(page.getByTestId("staff-email")).toHaveText(CHECKER2.email)
    // What earlier specs' requests left for checker2 is read first.
    const cleared = await page.request.post("/api/notifications/inbox/read", { data: {}, headers: { origin: origin() } })
    expect(cleared.status(), await cleared.text()).toBe(200)
    const bell = page.getByTestId("inbox-bell")
    await expect(bell.getByTestId("inbox-count")).toHaveCount(0)

    const trader = await traderApi()
    const id = await askForApproval(trader)
    await expect(bell.getByTestId("inbox-count")).toHaveText("1")
    await expect(bell).toHaveAttribute("aria-label", "Notifications, 1 unread")

    await bell.click()
    const drawer = page.getByRole("dialog", { name: "Notifications" })
    const item = drawer.getByTestId("inbox-item").filter({ has: page.locator(`a[href="/approvals#request-${id}"]`) })
    await expect(item).toHaveAttribute("data-read", "false")
    await expect(item.getByTestId("inbox-link")).toHaveText("Approval waiting: conversion request")
    await expect(item).toContainText("12,000.00 USD")
    await item.getByTestId("inbox-toggle-read").click()
    await expect(item).toHaveAttribute("data-read", "true")
    await expect(bell.getByTestId("inbox-count")).toHaveCount(0)

    // Another checker approves: the item says so within 5 s, without a reload.
    const admin = await adminApi(origin())
    const approved = await admin.post(`/api/approvals/${id}/approve`, { data: {} })
    expect(approved.status(), await approved.text()).toBe(200)
    await expect(item.getByTestId("inbox-resolved")).toHaveText("Taken: approved by admin@example.com", { timeout: 5_000 })

    // The deep link opens the request on the approvals page.
    await item.getByTestId("inbox-link").click()
    await expect(page).toHaveURL(new RegExp(`/approvals#request-${id}$`))
    await expect(page.locator(`#request-${id}`)).toBeVisible()

    // The trader (the maker) hears of the decision; the /notifications page lists it.
    const traderPage = await (await browser.newContext({ baseURL: origin(), storageState: storageStateOf("trader") })).newPage()
    await traderPage.goto("/notifications")
    const decided = traderPage.getByTestId("inbox-item").filter({ has: traderPage.locator(`a[href="/approvals#request-${id}"]`) })
    await expect(decided.getByTestId("inbox-link")).toHaveText("Your request was approved (conversion)")
    await admin.dispose()
    await trader.dispose()
    await context.close()
  })

  test("a team channel's URL token and signing secret never come back to the browser; /admin/deliveries lists it by scheme and host", async ({ browser }) => {
    const admin = await adminApi(origin())
    const token = "T0E2E/B0E2E/e2e-chat-token-canary-91c4"
    const added = await admin.post("/api/admin/notification-channels", {
      data: { name: "E2E signed hook", type: "webhook", url: `http://127.0.0.1:9/hooks/${token}`, secret: canaries.NOTIFY_WEBHOOK_SECRET, kinds: ["approval_waiting"] },
    })
    expect(added.status(), await added.text()).toBe(201)
    const answer = await added.text()
    const listed = await (await admin.get("/api/admin/notification-channels")).text()
    for (const body of [answer, listed]) {
      expect(body).not.toContain(token)
      expect(body).not.toContain(canaries.NOTIFY_WEBHOOK_SECRET)
    }
    const { id } = JSON.parse(answer) as { id: string }
    const page = await (await browser.newContext({ baseURL: origin(), storageState: storageStateOf("admin") })).newPage()
    await page.goto("/admin/deliveries")
    const row = page.getByTestId("channel-row").filter({ hasText: "E2E signed hook" })
    await expect(row).toContainText("http://127.0.0.1:9/…")
    expect(await page.content()).not.toContain(token)
    // Refused bodies name the field and the rule.
    const bad = await admin.post("/api/admin/notification-channels", { data: { name: "x", type: "webhook", url: "http://127.0.0.1:9/", kinds: ["approval_waiting"] } })
    expect(bad.status()).toBe(400)
    expect(await bad.json()).toMatchObject({ meta: { fields: { secret: "a webhook channel needs a signing secret" } } })
    expect((await admin.delete(`/api/admin/notification-channels/${id}`)).status()).toBe(200)
    await admin.dispose()
  })
})
