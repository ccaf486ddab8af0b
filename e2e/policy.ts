import { type APIRequestContext, expect, request as playwrightRequest } from "@playwright/test"
import canaries from "./canaries.json" with { type: "json" }
import { storageStateOf } from "./helpers"

/** The admin's API, with the Origin header a write needs. */
export function adminApi(baseURL: string): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, storageState: storageStateOf("admin"), extraHTTPHeaders: { origin: baseURL } })
}

export async function readPolicy(admin: APIRequestContext): Promise<Record<string, unknown>> {
  const res = await admin.get("/api/policy")
  expect(res.status(), await res.text()).toBe(200)
  return ((await res.json()) as { policy: Record<string, unknown> }).policy
}

export async function putPolicy(admin: APIRequestContext, policy: Record<string, unknown>): Promise<void> {
  const res = await admin.put("/api/policy", { data: policy })
  expect(res.status(), await res.text()).toBe(200)
}

/**
 * Runs `body` under a policy that asks for no approval, sets no limits and no retype size, then puts the
 * policy back: for tests of the service's own refusals (its maximum, insufficient funds),
 * which the console's limits would otherwise stop first.
 */
export async function withoutPolicyLimits<T>(baseURL: string, body: () => Promise<T>): Promise<T> {
  const admin = await adminApi(baseURL)
  const before = await readPolicy(admin)
  await putPolicy(admin, {
    ...before,
    approval_thresholds: { execution: {}, conversion: {} },
    retype_amount_over: {},
    role_limits: {},
    staff_limits: {},
  })
  try {
    return await body()
  } finally {
    await putPolicy(admin, before)
    await admin.dispose()
  }
}

/** POST /sandbox/admin/market-moves with the e2e server's sandbox client. */
export async function moveMarket(baseURL: string, asset: string, changePercent: string): Promise<void> {
  const api = await playwrightRequest.newContext({ baseURL })
  const token = await api.post("/sandbox/oauth2/token", {
    form: {
      grant_type: "client_credentials",
      client_id: canaries.SANDBOX_CLIENT_ID,
      client_secret: canaries.SANDBOX_CLIENT_SECRET,
      scope: "sandbox:admin",
    },
  })
  expect(token.status(), await token.text()).toBe(200)
  const { access_token: accessToken } = (await token.json()) as { access_token: string }
  const moved = await api.post("/sandbox/admin/market-moves", {
    headers: { authorization: `Bearer ${accessToken}` },
    data: { asset, change_percent: changePercent },
  })
  expect(moved.status(), await moved.text()).toBe(200)
  await api.dispose()
}

/**
 * Gives `email` a daily limit `room` USD above what it has used today (UTC), with the trader
 * role's limit per order, and returns how to put the policy back: earlier specs place large
 * orders with the limits lifted, and those count toward the day, so a test of the default
 * rules would otherwise find the day already over its limit.
 */
export async function roomToday(baseURL: string, email: string, room: string): Promise<() => Promise<void>> {
  const admin = await adminApi(baseURL)
  const res = await admin.get("/api/policy")
  expect(res.status(), await res.text()).toBe(200)
  const { policy: before, usage_today } = (await res.json()) as {
    policy: Record<string, unknown> & { role_limits: { trader: { per_order: Record<string, string> } }; staff_limits: Record<string, unknown> }
    usage_today: { staff_email: string; currency: string; used_today: string }[]
  }
  const used = usage_today.find((u) => u.staff_email === email && u.currency === "USD")?.used_today ?? "0.00"
  const { Decimal } = await import("@/lib/money")
  const perDay = new Decimal(used).add(room).toFixed(2)
  await putPolicy(admin, { ...before, staff_limits: { ...before.staff_limits, [email]: { per_order: before.role_limits.trader.per_order, per_day: { USD: perDay } } } })
  return async () => {
    await putPolicy(admin, before)
    await admin.dispose()
  }
}
