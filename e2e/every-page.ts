import { type APIRequestContext, type Page, expect } from "@playwright/test"

// Every page of the console, for the checks that hold on all of them (no sideways scroll
// on a phone, no CSP violation): the lists, one record of each kind (placed here through
// the real API) and the sign-in form.

export interface ConsolePage {
  path: string
  /** Shown once the page's data is there: the check waits for it. */
  ready?: string
}

/** One execution, one conversion and one deposit (a transfer), placed as the signed-in admin, so their record pages exist; the execution's intent page, and a search that finds it. */
export async function recordPages(api: APIRequestContext, origin: string): Promise<ConsolePage[]> {
  const profiles = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const profile = profiles.items.find((p) => p.nickname === "Treasury") ?? profiles.items[0]
  if (!profile) throw new Error("the sandbox has no profile")
  const quotes = (await (await api.get("/api/quotes?markets=BTCUSD")).json()) as { items: { id: string; side: string }[] }
  const quote = quotes.items.find((q) => q.side === "BUY")
  if (!quote) throw new Error("no BUY quote for BTCUSD")
  const execution = await api.post(`/api/profiles/${profile.id}/quote-executions`, {
    headers: { origin },
    data: { quote_id: quote.id, base_amount: "0.0001", ref_id: crypto.randomUUID() },
  })
  expect(execution.ok(), await execution.text()).toBe(true)
  const { id: executionId } = (await execution.json()) as { id: string }
  const conversion = await api.post("/api/conversions", {
    headers: { origin },
    data: { profile_id: profile.id, amount: "3.00", source_asset: "USD", target_asset: "USDP", ref_id: crypto.randomUUID() },
  })
  expect(conversion.ok(), await conversion.text()).toBe(true)
  const { id: conversionId } = (await conversion.json()) as { id: string }
  const deposit = await api.post("/api/sandbox/deposit", { headers: { origin }, data: { profile_id: profile.id, asset: "USD", amount: "12.00" } })
  expect(deposit.ok(), await deposit.text()).toBe(true)
  const { activity_id: transferId } = (await deposit.json()) as { activity_id: string }
  const intents = await api.get(`/api/intents?record_id=${executionId}`)
  expect(intents.ok(), await intents.text()).toBe(true)
  const [intent] = ((await intents.json()) as { items: { id: string }[] }).items
  if (!intent) throw new Error("the execution placed here has no intent")
  return [
    { path: `/executions/${profile.id}/${executionId}`, ready: "execution-record" },
    { path: `/conversions/${conversionId}`, ready: "conversion-record" },
    { path: `/transfers/${transferId}`, ready: "transfer-record" },
    { path: `/intents/${intent.id}`, ready: "intent-record" },
    { path: `/search?q=${executionId}`, ready: "search-row" },
  ]
}

/** The signed-in pages, as the admin sees them (every page is open to the admin). */
export const SIGNED_IN_PAGES: readonly ConsolePage[] = [
  { path: "/", ready: "total-usd" },
  { path: "/trade" },
  { path: "/executions", ready: "execution-row" },
  { path: "/conversions", ready: "conversion-row" },
  { path: "/conversions/new" },
  { path: "/transfers", ready: "transfer-row" },
  { path: "/statements", ready: "statement-tiles" },
  { path: "/approvals" },
  { path: "/audit", ready: "audit-row" },
  { path: "/audit?view=decisions" },
  { path: "/events", ready: "reader-status" },
  { path: "/admin/sessions", ready: "session-row" },
  { path: "/admin/staff", ready: "member-row" },
  { path: "/admin/deliveries", ready: "deliveries" },
  { path: "/notifications", ready: "inbox-unread" },
  { path: "/account", ready: "add-passkey" },
  { path: "/sandbox" },
]

export const SIGN_IN_PAGE: ConsolePage = { path: "/sign-in" }

/** Opens the page and waits until its data is shown and no "Loading…" placeholder is left. */
export async function openSettled(page: Page, target: ConsolePage): Promise<void> {
  const res = await page.goto(target.path)
  expect(res?.status(), target.path).toBe(200)
  await expect(page.locator("h1").first()).toBeVisible()
  if (target.ready) await expect(page.getByTestId(target.ready).first()).toBeVisible()
  await expect(page.getByText(/^Loading\b/)).toHaveCount(0)
}
