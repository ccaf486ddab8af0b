import { expect, test } from "@playwright/test"
import { openDesk, review, startTrade } from "./desk"
import { DEMO_PASSWORD, emailOf, signIn } from "./helpers"

// The standalone server started as the image starts it (scripts/standalone-server.mjs:
// the Dockerfile's CMD, a read-only app folder, an unprivileged user when run as root):
// sign in through the form, trade, and the operator's routes answer.

test("the image's server: liveness, readiness, a CSP on a static miss, sign in and a trade that settles", async ({ page, request }) => {
  expect((await request.get("/api/health/live")).status()).toBe(200)
  await expect.poll(async () => (await request.get("/api/health/ready")).status(), { timeout: 30_000 }).toBe(200)
  const favicon = await request.get("/favicon.ico")
  expect(favicon.status()).toBe(404)
  expect(favicon.headers()["content-security-policy"]).toContain("default-src 'self'")

  await page.goto("/sign-in")
  await signIn(page, emailOf("trader"), DEMO_PASSWORD)
  await expect(page.getByTestId("staff-role")).toHaveText("trader")

  await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
  await startTrade(page, "BUY", "crypto", "0.01")
  const dialog = await review(page)
  await dialog.getByTestId("confirm-button").click()
  const result = page.getByTestId("result")
  await expect(result.getByTestId("status")).toHaveText("SETTLED", { timeout: 30_000 })
})
