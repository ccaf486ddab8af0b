import { request as playwrightRequest, expect, test } from "@playwright/test"
import canaries from "./canaries.json" with { type: "json" }
import { storageStateOf } from "./helpers"

// The console sees what happens outside it: a wire deposit made at the sandbox directly
// (its own API, as the service's dashboard would; not through the console) reaches the
// overview's "Latest activity" and /events through the event reader, with no webhook.

interface Profile {
  id: string
  nickname: string
}

/** POST /sandbox/v2/sandbox/fiat-deposits with the e2e server's sandbox client: a wire deposit to `profileId`. */
async function wireDepositAtTheSandbox(baseURL: string, profileId: string, amount: string): Promise<void> {
  const api = await playwrightRequest.newContext({ baseURL })
  try {
    const token = await api.post("/sandbox/oauth2/token", {
      form: {
        grant_type: "client_credentials",
        client_id: canaries.SANDBOX_CLIENT_ID,
        client_secret: canaries.SANDBOX_CLIENT_SECRET,
        scope: "transfer:write_sandbox_fiat_deposit",
      },
    })
    expect(token.status(), await token.text()).toBe(200)
    const { access_token: accessToken } = (await token.json()) as { access_token: string }
    const deposited = await api.post("/sandbox/v2/sandbox/fiat-deposits", {
      headers: { authorization: `Bearer ${accessToken}` },
      data: {
        amount,
        asset: "USD",
        memo_id: profileId,
        fiat_network_instructions: {
          wire: {
            account_number: "000123456789",
            fiat_account_owner_address: { country: "US" },
            routing_details: { routing_number_type: "ABA", routing_number: "021000021", bank_name: "E2E Bank", bank_address: { country: "US" } },
          },
        },
      },
    })
    expect(deposited.status(), await deposited.text()).toBe(200)
  } finally {
    await api.dispose()
  }
}

test.describe("events from the service", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("a wire deposit made at the sandbox shows in the overview's feed, on /api/transfers and on /events within 10 s; replay changes nothing", async ({ page, baseURL }) => {
    const { items: profiles } = (await (await page.request.get("/api/profiles")).json()) as { items: Profile[] }
    const treasury = profiles.find((p) => p.nickname === "Treasury") ?? profiles[0]!
    // An amount no other test deposits: the feed row is this deposit's.
    const cents = String(Math.floor(Math.random() * 900_000) + 100_000)
    const amount = `${cents.slice(0, -2)}.${cents.slice(-2)}`
    const shown = `${Number(cents.slice(0, -2)).toLocaleString("en-US")}.${cents.slice(-2)} USD`

    await page.goto("/")
    await expect(page.getByTestId("feed")).toBeVisible()
    await wireDepositAtTheSandbox(baseURL!, treasury.id, amount)

    // The overview refreshes itself; the reader reads every 5 s.
    const item = page.getByTestId("feed-item").filter({ hasText: `Wire deposit of ${shown}` })
    await expect(item).toHaveCount(1, { timeout: 10_000 })
    await expect(item).toContainText(`Deposit · ${treasury.nickname}`)
    const transferId = await item.getAttribute("data-id")
    expect(transferId).toBeTruthy()
    // On /api/transfers too, completed.
    const listed = (await (await page.request.get(`/api/transfers?profile_id=${treasury.id}&type=WIRE_DEPOSIT&limit=50`)).json()) as {
      items: { id: string; status: string }[]
    }
    expect(listed.items.find((t) => t.id === transferId)?.status).toBe("COMPLETED")

    await page.goto("/events?type=transfer.wire_deposit.completed")
    // The object's id is an IdChip (its first 8 characters shown, the whole id in data-value) linking to the transfer.
    const chip = (id: string) => page.locator(`[data-testid="event-object"][data-value="${id}"]`)
    const row = page.getByTestId("event-row").filter({ has: chip(transferId!) })
    await expect(row).toHaveCount(1)
    await expect(row.getByRole("link", { name: `transfer id ${transferId!}` })).toHaveAttribute("href", `/transfers/${transferId!}`)
    await expect(row.getByRole("button", { name: /copy transfer id/i })).toBeVisible()
    await expect(row.getByTestId("event-status")).toHaveText("processed")

    await row.getByRole("button", { name: /^Replay event/ }).click()
    await expect(row.getByTestId("replay-result")).toHaveText("Replayed: processed")
    await expect(page.getByTestId("event-row").filter({ has: chip(transferId!) })).toContainText("replayed 1×")

    // Still one feed row for the deposit.
    await page.goto("/")
    await expect(page.getByTestId("feed-item").filter({ hasText: `Wire deposit of ${shown}` })).toHaveCount(1)
  })
})
