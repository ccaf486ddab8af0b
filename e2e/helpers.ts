import { type APIRequestContext, type Page, expect } from "@playwright/test"

export const DEMO_PASSWORD = "demo-password"
export const ROLES = ["viewer", "support", "trader", "admin"] as const
export type Role = (typeof ROLES)[number]

/**
 * The main e2e server's RECONCILE_AFTER_MS (playwright.config.ts): the reconciler leaves an
 * intent younger than this to its own request. Short, so a test of Reconcile now waits
 * seconds rather than the 30 s of the default.
 */
export const E2E_RECONCILE_AFTER_MS = 5000

export function emailOf(role: Role): string {
  return `${role}@example.com`
}

/** Signed-in states, per server port (each e2e server has its own auth secret). */
export function storageStateOf(role: Role): string {
  return `e2e/.auth/${process.env.E2E_PORT ?? "3100"}/${role}.json`
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in", exact: true }).click()
}

/** Sets the sandbox's settle delay through the console's admin route; returns the previous one. */
export async function setSettleDelay(admin: APIRequestContext, ms: number): Promise<number> {
  const before = (await (await admin.get("/api/sandbox/settings")).json()) as { settle_delay_ms: number }
  const res = await admin.put("/api/sandbox/settings", { data: { settle_delay_ms: ms } })
  expect(res.status(), await res.text()).toBe(200)
  return before.settle_delay_ms
}
