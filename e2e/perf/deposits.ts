// 12. Events: a wire deposit made at the service directly (not through the console), until
// the console shows it (npm run bench -- --only deposits). A fresh console in sandbox mode
// (the embedded sandbox is the service; the event reader on, EVENTS_POLL_MS 5 s), once
// with the webhook on (WEBHOOK_API_KEY set: the console points the sandbox's webhook at its
// own POST /api/webhooks/service) and once without. The overview (/) is open in a real
// browser, signed in as the admin. Each deposit goes to the sandbox's own API
// (POST /v2/sandbox/profiles/{id}/deposit, a WIRE_DEPOSIT that completes in the request:
// PENDING and COMPLETED, two events), then, from the moment it was sent: when
// GET /api/transfers lists it COMPLETED, when GET /api/overview's feed has it (both asked
// every 100 ms), and when the open page's live feed shows it (the page's own refresh).
// Afterwards: each deposit's two events in the console's event log, processed once each
// (GET /api/events: one row per event id, processed, never replayed), and, with the
// webhook on, the hints the receiver accepted (GET /api/metrics). Deposits are spaced
// 1.3 to 2.3 s apart, so they fall at every phase of the page's refresh. A smoke run: 2
// deposits, the webhook on only.
import { randomBytes } from "node:crypto"
import { type Browser, type Page, chromium, devices } from "@playwright/test"
import { existsSync } from "node:fs"
import { z } from "zod"
import playwrightConfig from "../../playwright.config"
import { type Bench, logLine } from "./context"
import { expectOk, json, send } from "./http"
import { ADMIN, SCOPES } from "./options"
import { sandboxToken, signIn } from "./servers"
import { median, round, sleep } from "./stats"
import { type BenchClient, startConsoleUnderTest } from "./targets"

const GROUP = "12. events: a wire deposit made at the service directly, seen by the console"
const EVENTS_POLL_MS = 5000
const ASK_EVERY_MS = 100
const GIVE_UP_MS = 20_000

const transfersSchema = z.object({ items: z.array(z.object({ id: z.string(), status: z.string() })) })
const overviewSchema = z.object({ feed: z.array(z.object({ id: z.string() })) })
const eventLogSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      object_id: z.string().nullable(),
      status: z.string(),
      replays: z.number(),
      created_at: z.string(),
      processed_at: z.string().nullable(),
    }),
  ),
})

type Mode = "webhook" | "no webhook"

interface Seen {
  /** Milliseconds from sending the deposit: GET /api/transfers lists it COMPLETED. */
  transfersMs: number
  /** … GET /api/overview's feed has it. */
  feedApiMs: number
  /** … the open overview page's live feed shows it. */
  pageMs: number
}

interface Run {
  mode: Mode
  seen: Seen[]
  /** Events of these deposits in the console's log, processed, once each, never replayed; and how many there should be. */
  eventsOnce: number
  eventsExpected: number
  hintsAccepted: number | null
  /** Each completed event: from its time at the service to its processing by the reader (the console's share before any page asks). */
  readerMs: number[]
}

/** Asks `probe` every 100 ms until it says yes; the time from `t0`, or NaN after GIVE_UP_MS. */
async function until(t0: number, probe: () => Promise<boolean>): Promise<number> {
  while (Date.now() - t0 < GIVE_UP_MS) {
    if (await probe()) return Date.now() - t0
    await sleep(ASK_EVERY_MS)
  }
  return Number.NaN
}

async function openOverview(browser: Browser, origin: string, cookie: string): Promise<Page> {
  const context = await browser.newContext({ ...devices["Desktop Chrome"], baseURL: origin })
  const [name = "", ...rest] = cookie.split("=")
  await context.addCookies([{ name, value: rest.join("="), url: origin }])
  const page = await context.newPage()
  await page.goto("/")
  await page.getByTestId("feed").waitFor({ timeout: 30_000 })
  return page
}

async function run(bench: Bench, client: BenchClient, browser: Browser, mode: Mode, count: number): Promise<Run> {
  const metricsToken = randomBytes(24).toString("base64url")
  const app = await startConsoleUnderTest(bench, client, {
    name: `console-deposits-${mode === "webhook" ? "webhook" : "polling"}`,
    quiet: true,
    env: {
      EVENTS_POLL_MS: String(EVENTS_POLL_MS),
      METRICS_TOKEN: metricsToken,
      ...(mode === "webhook" ? { WEBHOOK_API_KEY: randomBytes(32).toString("base64url") } : {}),
    },
  })
  try {
    const admin = await signIn(app.origin, ADMIN.email, ADMIN.password)
    const headers = { cookie: admin, origin: app.origin }
    const token = await sandboxToken(app.origin, client.clientId, client.clientSecret, SCOPES)
    const page = await openOverview(browser, app.origin, admin)
    // The reader's first read (everything the sandbox has) and the webhook's setting are not this measurement's.
    await sleep(bench.args.smoke ? 3000 : EVENTS_POLL_MS + 1000)
    const seen: Seen[] = []
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const amount = `${1000 + i}.${String(Math.floor(Math.random() * 100)).padStart(2, "0")}`
      const t0 = Date.now()
      const res = expectOk(
        await send(app.origin, {
          method: "POST",
          path: `/sandbox/v2/sandbox/profiles/${app.profile}/deposit`,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ asset: "USD", amount }),
        }),
        "POST /sandbox/v2/sandbox/profiles/{id}/deposit",
      )
      const id = z.object({ activity_id: z.string() }).parse(json(res)).activity_id
      ids.push(id)
      const onPage = page
        .locator(`[data-testid="feed-item"][data-id="${id}"]`)
        .waitFor({ timeout: GIVE_UP_MS })
        .then(
          () => Date.now() - t0,
          () => Number.NaN,
        )
      const [transfersMs, feedApiMs, pageMs] = await Promise.all([
        until(t0, async () => {
          const r = await send(app.origin, { path: `/api/transfers?profile_id=${app.profile}&limit=20`, headers })
          return r.status === 200 && transfersSchema.parse(json(r)).items.some((t) => t.id === id && t.status === "COMPLETED")
        }),
        until(t0, async () => {
          const r = await send(app.origin, { path: "/api/overview", headers })
          return r.status === 200 && overviewSchema.parse(json(r)).feed.some((f) => f.id === id)
        }),
        onPage,
      ])
      seen.push({ transfersMs, feedApiMs, pageMs })
      if (Number.isNaN(pageMs)) bench.failures.push(`deposits (${mode}): deposit ${id} never showed in the overview's feed`)
      await sleep(1300 + Math.floor(Math.random() * 1000))
    }
    // Each deposit: transfer.wire_deposit.pending and .completed, each processed once.
    const log = eventLogSchema.parse(json(expectOk(await send(app.origin, { path: "/api/events?type=transfer.&limit=500", headers }), "GET /api/events")))
    const mine = log.items.filter((e) => e.object_id !== null && ids.includes(e.object_id))
    const perId = new Map<string, number>()
    for (const e of mine) perId.set(e.id, (perId.get(e.id) ?? 0) + 1)
    const eventsOnce = mine.filter((e) => e.status === "processed" && e.replays === 0 && perId.get(e.id) === 1).length
    const readerMs = mine
      .filter((e) => e.type.endsWith(".completed"))
      .map((e) => (e.processed_at ? Date.parse(e.processed_at) - Date.parse(e.created_at) : Number.NaN))
    let hintsAccepted: number | null = null
    if (mode === "webhook") {
      const metrics = await send(app.origin, { path: "/api/metrics", headers: { authorization: `Bearer ${metricsToken}` } })
      const line = /console_webhook_hints_total\{[^}]*result="accepted"[^}]*\} (\d+)/.exec(metrics.body.toString("utf8"))
      hintsAccepted = line ? Number(line[1]) : 0
    }
    await page.context().close()
    return { mode, seen, eventsOnce, eventsExpected: 2 * ids.length, hintsAccepted, readerMs }
  } finally {
    await app.server.stop(15_000)
  }
}

const worst = (xs: number[]) => (xs.some((x) => Number.isNaN(x)) ? Number.NaN : Math.max(...xs))
const seconds = (ms: number) => (Number.isNaN(ms) ? "never" : `${round(ms / 1000, 2)} s`)

export async function measureDeposits(bench: Bench, client: BenchClient): Promise<void> {
  const count = bench.args.smoke ? 2 : 10
  // A smoke run (npm test) only with the webhook: e2e/events.spec.ts already waits for one without it.
  const modes: Mode[] = bench.args.smoke ? ["webhook"] : ["webhook", "no webhook"]
  logLine(`deposits: ${count} wire deposits made at the sandbox directly, until the console shows them; ${modes.map((m) => `with ${m === "webhook" ? "the webhook" : "no webhook"}`).join(", then ")}`)
  const launch = playwrightConfig.use?.launchOptions ?? {}
  const executablePath = launch.executablePath && existsSync(launch.executablePath) ? launch.executablePath : undefined
  const browser = await chromium.launch({ ...launch, executablePath, headless: true })
  const runs: Run[] = []
  try {
    for (const mode of modes) {
      const r = await run(bench, client, browser, mode, count)
      runs.push(r)
      const page = r.seen.map((s) => s.pageMs)
      logLine(
        `  ${mode}: on the page after ${page.map((ms) => seconds(ms)).join(", ")}; GET /api/transfers COMPLETED median ${seconds(median(r.seen.map((s) => s.transfersMs)))}, ` +
          `GET /api/overview's feed median ${seconds(median(r.seen.map((s) => s.feedApiMs)))} (max ${seconds(worst(r.seen.map((s) => s.feedApiMs)))}); ` +
          `the reader processed the completed event after median ${seconds(median(r.readerMs))} (max ${seconds(worst(r.readerMs))}); ` +
          `events processed once ${r.eventsOnce}/${r.eventsExpected}${r.hintsAccepted === null ? "" : `; ${r.hintsAccepted} hints accepted`}`,
      )
    }
  } finally {
    await browser.close()
  }
  bench.results.deposits = runs
  for (const r of runs) {
    const page = r.seen.map((s) => s.pageMs)
    const feedApi = r.seen.map((s) => s.feedApiMs)
    const limitMs = r.mode === "webhook" ? 2000 : 10_000
    bench.rows.push({
      group: GROUP,
      what: `${count} wire deposits at the sandbox's own API, ${r.mode === "webhook" ? "the webhook on" : "no webhook (the reader's 5 s clock)"}: in the open overview's live feed after (slowest; from the deposit's sending)`,
      console: seconds(worst(page)),
      baseline: "",
      value:
        `page median ${seconds(median(page))}; processed by the reader median ${seconds(median(r.readerMs))}, slowest ${seconds(worst(r.readerMs))}; GET /api/overview's feed median ${seconds(median(feedApi))}, slowest ${seconds(worst(feedApi))}; ` +
        `GET /api/transfers COMPLETED slowest ${seconds(worst(r.seen.map((s) => s.transfersMs)))}` +
        (r.hintsAccepted === null ? "" : `; ${r.hintsAccepted} webhook hints accepted`),
      goal: `≤ ${limitMs / 1000} s`,
      ok: worst(page) <= limitMs && worst(r.seen.map((s) => s.transfersMs)) <= limitMs && (r.hintsAccepted === null || r.hintsAccepted > 0),
    })
    bench.rows.push({
      group: GROUP,
      what: `their events (pending and completed) in the console's event log, ${r.mode}: processed once each, never replayed`,
      console: `${r.eventsOnce} / ${r.eventsExpected}`,
      baseline: "",
      value: "GET /api/events: one row per event id, status processed",
      goal: "all",
      ok: r.eventsOnce === r.eventsExpected,
    })
  }
}
