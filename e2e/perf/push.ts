// 13. Push, not poll (npm run bench -- --only push): issue 37's GET /api/stream against the
// polling it replaces, side by side in one run, on one fresh console in upstream mode on
// PGlite against a standalone sandbox (npm run sandbox) as the service, in a process of its
// own: the console's CPU is then the console's alone, as in a deployment, where the service
// is elsewhere (in sandbox mode the embedded sandbox making each second's quotes was most of
// what an open stream seemed to cost). The service's CPU is shown beside, not counted. First
// the console with nothing open (its own jobs: the reference every count is read against).
// For each count of open desks (50, 200 and 300; 3 in a smoke run) and each way:
//   polling: each desk asks what an open /trade asked before the stream, at the same
//     intervals: /api/quotes (every market) every 1 s, /api/notifications every 2.5 s,
//     the inbox (the bell) every 4 s, the pending-approvals count every 5 s (the sandbox's
//     fault status, every 15 s in sandbox mode, is not asked in upstream mode);
//   push: each desk holds one GET /api/stream?quotes=all&topics=approvals,inbox,notifications
//     (a headless stream client) and polls nothing: the inbox, the approvals count and the
//     notifications (with their checks of the person's placements in flight, done by the
//     hub once per person) come on the stream.
// With the 200 desks (the smoke run's 3) also 5 real Chromium tabs (1 in a smoke run) on
// /trade, signed in as the same trader: the page side. Polling, their GET /api/stream is
// refused (the page's own fallback: it polls at its old intervals); push, each holds its stream.
// Measured over a window after a warm-up: the price age at the desk (from the quote's
// created_at at the service to the moment the desk has it: an answer's or an event's
// arrival), p50 and p99 over every quote received; the price age on the page (from the
// quote's created_at to the moment the page shows it: the trade desk's BUY tile carries the
// quote's id and created_at as data attributes, and a MutationObserver the bench adds before
// the page loads notes the time each new quote id is committed to the DOM; the page itself
// does nothing more), p50 and p99 over every quote shown; the console's CPU seconds per
// desk-hour (its process group's CPU time over the window); memory per open stream (RSS
// with the streams open, less RSS before they opened, per stream); errors (non-2xx
// answers, failed or ended streams); and the service's quotes calls per second (the
// console's own count, GET /api/metrics). Every loop is bounded by the window.
// Then the status latency: executions placed one after another while a stream that
// carries notifications is open; for each SETTLED, from the moment the console wrote it on
// the intent (the record event's `at`, stamped by the trigger in the writing transaction)
// to the event's arrival at the stream client.
import http from "node:http"
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { type Browser, type BrowserContext, type Page, chromium, devices } from "@playwright/test"
import playwrightConfig from "../../playwright.config"
import { type Bench, logLine } from "./context"
import { keepAliveAgent, send } from "./http"
import { groupCpuMs, groupMemory } from "./processes"
import { percentile, round, sleep } from "./stats"
import { type BenchClient, type ConsoleUnderTest, type DirectSandbox, startConsoleUnderTest, startDirectSandbox } from "./targets"

const GROUP = "13. push, not poll: one stream per desk against polling (GET /api/stream)"

export interface PushSettings {
  desks: number[]
  /** Real Chromium tabs on /trade (the page side), opened with the desks of `tabsWith` (else the first count). */
  tabs: number
  tabsWith: number
  warmupMs: number
  windowMs: number
  /** Executions placed for the status latency. */
  statusCount: number
}

export const PUSH_FULL: PushSettings = { desks: [50, 200, 300], tabs: 5, tabsWith: 200, warmupMs: 5_000, windowMs: 30_000, statusCount: 20 }
export const PUSH_SMOKE: PushSettings = { desks: [3], tabs: 1, tabsWith: 3, warmupMs: 1_000, windowMs: 3_000, statusCount: 2 }

type Way = "polling" | "push"

interface Outcome {
  way: Way
  desks: number
  ages: number[]
  /** Chromium tabs on /trade in this run (0: none). */
  tabs: number
  /** The price age on those pages: one per quote shown. */
  pageAges: number[]
  /** What went wrong on a tab (a push tab whose stream was not live at the end, …). */
  pageErrors: string[]
  cpuSecondsPerDeskHour: number
  /** The service's (the standalone sandbox's) CPU seconds per hour over the window: not the console's. */
  serviceCpuSecondsPerHour: number
  /** Push only: MiB per open stream. */
  mibPerStream: number | null
  errors: number
  /** What the errors were ("HTTP 429 /api/quotes", "ECONNRESET /api/approvals…"), with their counts. */
  errorKinds: string[]
  quoteCallsPerSecond: number
  requests: number
}

interface Quote {
  created_at: string
}

/** What a way's clients counted: answers, failures, and what each failure was (shown with the errors row). */
interface Tally {
  requests: number
  errors: number
  kinds: Map<string, number>
}

function failed(tally: Pick<Tally, "errors" | "kinds">, kind: string): void {
  tally.errors++
  tally.kinds.set(kind, (tally.kinds.get(kind) ?? 0) + 1)
}

/** The newest quote's age in ms at `now`, or null when the answer holds none. */
function ageOf(items: readonly Quote[], now: number): number | null {
  let newest = Number.NEGATIVE_INFINITY
  for (const q of items) newest = Math.max(newest, Date.parse(q.created_at))
  return Number.isFinite(newest) ? now - newest : null
}

/** The console's count of quotes calls to the service so far; NaN when /api/metrics does not answer. */
async function quoteCalls(app: ConsoleUnderTest, token: string): Promise<number> {
  const res = await send(app.origin, { path: "/api/metrics", headers: { authorization: `Bearer ${token}` } }).catch(() => null)
  if (!res || res.status !== 200) return Number.NaN
  let total = 0
  for (const m of res.body.toString("utf8").matchAll(/console_upstream_request_duration_seconds_count\{([^}]*)\} (\d+)/g)) {
    if (/operation="listQuotes"/.test(m[1] ?? "")) total += Number(m[2])
  }
  return total
}

/** Polls `path` every `periodMs` until `until`, counting answers and errors; hands 2xx bodies to `onBody`. */
async function poller(origin: string, path: string, periodMs: number, until: number, headers: Record<string, string>, agent: http.Agent, tally: Tally, onBody?: (body: Buffer, at: number) => void): Promise<void> {
  // Desks do not start in step: each begins at a random point of its period.
  // No wait runs past the window's end.
  const left = () => Math.max(0, until - Date.now())
  await sleep(Math.min(Math.random() * periodMs, left()))
  while (Date.now() < until) {
    const started = Date.now()
    try {
      const res = await send(origin, { path, headers }, agent)
      tally.requests++
      if (res.status < 200 || res.status >= 300) failed(tally, `HTTP ${res.status} ${path}`)
      else onBody?.(res.body, Date.now())
    } catch (error) {
      failed(tally, `${(error as { code?: string }).code ?? (error instanceof Error ? error.message.split(":")[0] : "error")} ${path}`)
    }
    await sleep(Math.min(Math.max(0, periodMs - (Date.now() - started)), left()))
  }
}

interface StreamClient {
  close(): void
  opened: Promise<void>
}

/** The topics an open /trade carries besides its quotes: the bell, the approvals badge, the toasts. */
const DESK_TOPICS = "approvals,inbox,notifications"

/** One headless stream client: reads SSE events, handing each `quotes` event's items to `onQuotes` (and every event to `onEvent`). */
function streamClient(
  origin: string,
  cookie: string,
  tally: Pick<Tally, "errors" | "kinds">,
  onQuotes: (items: Quote[], at: number) => void,
  options: { path?: string; onEvent?: (name: string, data: string, at: number) => void } = {},
): StreamClient {
  let closedByUs = false
  let ready: () => void = () => undefined
  const opened = new Promise<void>((resolve) => (ready = resolve))
  const url = new URL(options.path ?? `/api/stream?quotes=all&topics=${DESK_TOPICS}`, origin)
  const req = http.get(url, { headers: { cookie, accept: "text/event-stream" }, agent: false }, (res) => {
    if (res.statusCode !== 200) {
      failed(tally, `stream HTTP ${res.statusCode}`)
      res.resume()
      ready()
      return
    }
    let buffer = ""
    res.setEncoding("utf8")
    res.on("data", (chunk: string) => {
      buffer += chunk
      let cut: number
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        const name = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (name && data) options.onEvent?.(name, data, Date.now())
        if (name === "ready") ready()
        else if (name === "quotes" && data) onQuotes((JSON.parse(data) as { items: Quote[] }).items, Date.now())
        else if (name === "end") failed(tally, "stream ended by the console")
      }
    })
    res.on("end", () => {
      if (!closedByUs) failed(tally, "stream closed")
      ready()
    })
  })
  req.on("error", (error: NodeJS.ErrnoException) => {
    if (!closedByUs) failed(tally, `stream ${error.code ?? error.message}`)
    ready()
  })
  return {
    opened,
    close() {
      closedByUs = true
      req.destroy()
    },
  }
}

/**
 * Added to each tab before the page loads: notes when each new quote id is committed to the
 * trade desk's BUY tile, with the quote's created_at (both data attributes of the tile).
 * Plain JavaScript (the bench's compiler does not touch it).
 */
const WATCH_SHOWN_QUOTES = `(() => {
  const shown = []
  window.__benchShownQuotes = shown
  let last = ""
  new MutationObserver((records) => {
    const at = Date.now()
    for (const r of records) {
      const el = r.target
      if (el.getAttribute("data-testid") !== "quote-BUY") continue
      const id = el.getAttribute("data-quote-id") || ""
      const created = el.getAttribute("data-quote-created-at")
      if (!created || id === last) continue
      last = id
      shown.push({ at, created })
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-quote-id"] })
})()`

interface Tab {
  context: BrowserContext
  page: Page
}

/** Opens `count` tabs on /trade as the bench's trader; polling, their stream is refused (the page falls back to its polls). */
async function openTabs(browser: Browser, app: ConsoleUnderTest, way: Way, count: number): Promise<Tab[]> {
  const tabs: Tab[] = []
  const [name = "", ...rest] = app.cookie.split("=")
  for (let i = 0; i < count; i++) {
    const context = await browser.newContext({ ...devices["Desktop Chrome"], baseURL: app.origin })
    await context.addCookies([{ name, value: rest.join("="), url: app.origin }])
    if (way === "polling") await context.route("**/api/stream**", (route) => route.abort())
    await context.addInitScript({ content: WATCH_SHOWN_QUOTES })
    const page = await context.newPage()
    tabs.push({ context, page })
    await page.goto("/trade")
    await page.locator("[data-testid=quote-BUY][data-quote-created-at]").waitFor({ timeout: 60_000 })
    if (way === "push") await page.locator("[data-testid=console-stream][data-state=live]").waitFor({ state: "attached", timeout: 30_000 })
  }
  return tabs
}

/** Each tab's quotes shown between `from` and `to`, as ages; a push tab whose stream is not live now is an error. */
async function collectTabs(tabs: readonly Tab[], way: Way, from: number, to: number, ages: number[], errors: string[]): Promise<void> {
  for (const [i, tab] of tabs.entries()) {
    try {
      const shown = await tab.page.evaluate(() => (window as unknown as { __benchShownQuotes: { at: number; created: string }[] }).__benchShownQuotes.splice(0))
      for (const s of shown) {
        if (s.at < from || s.at > to) continue
        const age = ageOf([{ created_at: s.created }], s.at)
        if (age !== null) ages.push(age)
      }
      const state = await tab.page.getByTestId("console-stream").getAttribute("data-state")
      if (way === "push" && state !== "live") errors.push(`tab ${i + 1}: stream ${state ?? "absent"}`)
      if (way === "polling" && state === "live") errors.push(`tab ${i + 1}: stream live while refused`)
    } catch (error) {
      errors.push(`tab ${i + 1}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
    }
  }
}

async function runOnce(app: ConsoleUnderTest, service: DirectSandbox, metricsToken: string, way: Way, desks: number, cfg: PushSettings, browser: Browser | null, tabCount: number): Promise<Outcome> {
  const headers = app.headers
  const tally: Tally = { requests: 0, errors: 0, kinds: new Map() }
  const ages: number[] = []
  const pageAges: number[] = []
  const pageErrors: string[] = []
  // The tabs first: the memory per stream is the desks' streams alone.
  const tabs = browser && tabCount > 0 ? await openTabs(browser, app, way, tabCount) : []
  const agent = keepAliveAgent(desks * 2)
  const rssBefore = groupMemory(app.server.pid).rssMiB
  const streams: StreamClient[] = []
  let measuring = false
  if (way === "push") {
    for (let i = 0; i < desks; i++) {
      streams.push(streamClient(app.origin, app.cookie, tally, (items, at) => {
        const age = ageOf(items, at)
        if (age !== null && measuring) ages.push(age)
      }))
    }
    await Promise.all(streams.map((s) => s.opened))
  }
  const end = Date.now() + cfg.warmupMs + cfg.windowMs
  const loops: Promise<void>[] = []
  for (let i = 0; i < desks; i++) {
    if (way === "polling") {
      loops.push(
        poller(app.origin, "/api/quotes", 1000, end, headers, agent, tally, (body, at) => {
          const age = ageOf((JSON.parse(body.toString("utf8")) as { items: Quote[] }).items, at)
          if (age !== null && measuring) ages.push(age)
        }),
      )
      if (app.mode === "sandbox") loops.push(poller(app.origin, "/api/sandbox/status", 15_000, end, headers, agent, tally))
      loops.push(poller(app.origin, "/api/notifications", 2500, end, headers, agent, tally))
      loops.push(poller(app.origin, "/api/notifications/inbox", 4000, end, headers, agent, tally))
      loops.push(poller(app.origin, "/api/approvals?state=PENDING&limit=1", 5000, end, headers, agent, tally))
    }
  }
  await sleep(cfg.warmupMs)
  measuring = true
  const rssOpen = groupMemory(app.server.pid).rssMiB
  const cpu0 = groupCpuMs(app.server.pid)
  const serviceCpu0 = groupCpuMs(service.server.pid)
  const calls0 = await quoteCalls(app, metricsToken)
  const t0 = Date.now()
  const requests0 = tally.requests
  await Promise.all(loops)
  // Push desks poll nothing: the window is the streams' alone.
  await sleep(Math.max(0, end - Date.now()))
  const seconds = (Date.now() - t0) / 1000
  const cpuMs = groupCpuMs(app.server.pid) - cpu0
  const serviceCpuMs = groupCpuMs(service.server.pid) - serviceCpu0
  const calls = (await quoteCalls(app, metricsToken)) - calls0
  await collectTabs(tabs, way, t0, end, pageAges, pageErrors)
  for (const tab of tabs) await tab.context.close().catch(() => undefined)
  for (const s of streams) s.close()
  agent.destroy()
  await sleep(500)
  return {
    way,
    desks,
    ages,
    tabs: tabs.length,
    pageAges,
    pageErrors,
    cpuSecondsPerDeskHour: cpuMs / 1000 / desks / (seconds / 3600),
    serviceCpuSecondsPerHour: serviceCpuMs / 1000 / (seconds / 3600),
    mibPerStream: way === "push" ? Math.max(0, rssOpen - rssBefore) / desks : null,
    errors: tally.errors,
    errorKinds: [...tally.kinds].map(([kind, n]) => `${n} × ${kind}`),
    quoteCallsPerSecond: calls / seconds,
    requests: tally.requests - requests0,
  }
}

interface StatusLatency {
  /** ms from the console writing SETTLED on the intent to its arrival on the stream, one per execution. */
  latencies: number[]
  placed: number
  errors: string[]
}

/**
 * Places `count` executions, one every ~1.2 s (within the sandbox's rate limit), with one
 * stream open that carries the trader's notifications (so the hub checks the placements in
 * flight, as an open desk's stream does), and times each SETTLED from the trigger's stamp
 * to the stream client; waits at most `waitMs` for the last.
 */
async function measureStatusLatency(app: ConsoleUnderTest, count: number, waitMs: number): Promise<StatusLatency> {
  const latencies: number[] = []
  const errors: string[] = []
  const settled = new Set<string>()
  const tally: Tally = { requests: 0, errors: 0, kinds: new Map() }
  const stream = streamClient(app.origin, app.cookie, tally, () => undefined, {
    path: "/api/stream?topics=notifications",
    onEvent: (name, data, at) => {
      if (name !== "record") return
      const event = JSON.parse(data) as { record_id: string | null; final_status: string | null; at: string }
      if (event.final_status !== "SETTLED" || !event.record_id || settled.has(event.record_id)) return
      settled.add(event.record_id)
      latencies.push(at - Date.parse(event.at))
    },
  })
  await stream.opened
  const agent = keepAliveAgent(1)
  const placed: string[] = []
  try {
    for (let i = 0; i < count; i++) {
      const started = Date.now()
      const quotes = await send(app.origin, { path: "/api/quotes?markets=BTCUSD", headers: app.headers }, agent)
      const quote = (JSON.parse(quotes.body.toString("utf8")) as { items: { id: string; side: string }[] }).items.find((q) => q.side === "BUY")
      if (!quote) {
        errors.push("no BUY quote")
        continue
      }
      const res = await send(
        app.origin,
        {
          method: "POST",
          path: `/api/profiles/${app.profile}/quote-executions`,
          headers: { ...app.headers, "content-type": "application/json" },
          body: JSON.stringify({ quote_id: quote.id, base_amount: "0.0001", ref_id: `bench-status-${randomBytes(8).toString("hex")}` }),
        },
        agent,
      )
      if (res.status >= 200 && res.status < 300) placed.push((JSON.parse(res.body.toString("utf8")) as { id: string }).id)
      else errors.push(`HTTP ${res.status}: ${res.body.toString("utf8").slice(0, 120)}`)
      await sleep(Math.max(0, 1200 - (Date.now() - started)))
    }
    const deadline = Date.now() + waitMs
    while (placed.some((id) => !settled.has(id)) && Date.now() < deadline) await sleep(200)
  } finally {
    stream.close()
    agent.destroy()
  }
  const missing = placed.filter((id) => !settled.has(id))
  if (missing.length > 0) errors.push(`${missing.length} of ${placed.length} never pushed SETTLED within ${waitMs / 1000} s`)
  if (tally.errors > 0) errors.push(`${tally.errors} stream errors`)
  return { latencies, placed: placed.length, errors }
}

/** The console's and the service's CPU seconds per hour over `ms` with nothing open. */
async function idleCpu(app: ConsoleUnderTest, service: DirectSandbox, ms: number): Promise<{ console: number; service: number }> {
  const c0 = groupCpuMs(app.server.pid)
  const s0 = groupCpuMs(service.server.pid)
  const t0 = Date.now()
  await sleep(ms)
  const hours = (Date.now() - t0) / 3_600_000
  return { console: (groupCpuMs(app.server.pid) - c0) / 1000 / hours, service: (groupCpuMs(service.server.pid) - s0) / 1000 / hours }
}

export async function measurePush(bench: Bench, client: BenchClient, cfg: PushSettings): Promise<void> {
  const metricsToken = randomBytes(24).toString("base64url")
  const service = await startDirectSandbox(bench, client)
  const app = await startConsoleUnderTest(bench, client, { name: "console-push", upstream: service.origin, label: "upstream mode (push)", env: { METRICS_TOKEN: metricsToken } })
  const outcomes: Outcome[] = []
  let idle: { console: number; service: number } | null = null
  let status: StatusLatency | null = null
  const tabsAt = cfg.desks.includes(cfg.tabsWith) ? cfg.tabsWith : cfg.desks[0]
  let browser: Browser | null = null
  try {
    if (cfg.tabs > 0) {
      const launch = playwrightConfig.use?.launchOptions ?? {}
      const executablePath = launch.executablePath && existsSync(launch.executablePath) ? launch.executablePath : undefined
      browser = await chromium.launch({ ...launch, executablePath, headless: true })
    }
    logLine(`push: nothing open, ${Math.round((cfg.warmupMs + cfg.windowMs) / 1000)} s`)
    await sleep(cfg.warmupMs)
    idle = await idleCpu(app, service, cfg.windowMs)
    for (const desks of cfg.desks) {
      const tabs = desks === tabsAt ? cfg.tabs : 0
      for (const way of ["polling", "push"] as const) {
        logLine(`push: ${desks} desks${tabs ? ` + ${tabs} Chromium tabs on /trade` : ""}, ${way}, ${Math.round((cfg.warmupMs + cfg.windowMs) / 1000)} s`)
        const o = await runOnce(app, service, metricsToken, way, desks, cfg, browser, tabs)
        outcomes.push(o)
        if (o.tabs) logLine(`  price age on the page p50 / p99: ${o.pageAges.length ? `${Math.round(percentile(o.pageAges, 50))} / ${Math.round(percentile(o.pageAges, 99))} ms` : "none"} (${o.pageAges.length} quotes shown)${o.pageErrors.length ? `; ${o.pageErrors.join("; ")}` : ""}`)
      }
    }
    logLine(`push: status latency, ${cfg.statusCount} executions`)
    status = await measureStatusLatency(app, cfg.statusCount, 60_000)
  } finally {
    await browser?.close()
    await app.server.stop(20_000)
    await service.server.stop(5000)
  }
  if (status) {
    const l = status.latencies
    bench.results.pushStatus = { placed: status.placed, pushed: l.length, p50Ms: percentile(l, 50), p99Ms: percentile(l, 99), maxMs: l.length ? Math.max(...l) : null, errors: status.errors }
    bench.rows.push({
      group: GROUP,
      what: "status latency: SETTLED written by the console → on the stream, p50 / p99 / max",
      console: l.length ? `${Math.round(percentile(l, 50))} / ${Math.round(percentile(l, 99))} / ${Math.round(Math.max(...l))} ms` : "none",
      baseline: "polling: up to the next poll (1 s on a record page, 2.5 s for a toast)",
      value: `${l.length} of ${status.placed} executions${status.errors.length ? `; ${status.errors.join("; ")}` : ""}`,
      goal: "≤ 1 s",
      ok: l.length > 0 && l.length === status.placed && Math.max(...l) <= 1000 && status.errors.length === 0,
    })
  }
  if (idle) {
    bench.results.pushIdle = idle
    bench.rows.push({
      group: GROUP,
      what: "nothing open: the console's CPU seconds per hour (its own jobs; every count below includes it)",
      console: `${round(idle.console, 1)} s`,
      baseline: "",
      value: `the service (the standalone sandbox, not counted): ${round(idle.service, 1)} s per hour`,
      goal: "report",
      ok: true,
    })
  }
  bench.results.push = outcomes.map((o) => ({
    ...o,
    ages: undefined,
    pageAges: undefined,
    ageP50Ms: percentile(o.ages, 50),
    ageP99Ms: percentile(o.ages, 99),
    samples: o.ages.length,
    pageAgeP50Ms: o.tabs ? percentile(o.pageAges, 50) : null,
    pageAgeP99Ms: o.tabs ? percentile(o.pageAges, 99) : null,
    pageSamples: o.pageAges.length,
  }))
  for (const desks of cfg.desks) {
    const poll = outcomes.find((o) => o.desks === desks && o.way === "polling")
    const push = outcomes.find((o) => o.desks === desks && o.way === "push")
    if (!poll || !push) continue
    const p = (xs: number[], q: number) => (xs.length ? `${round(percentile(xs, q) / 1000, 2)} s` : "none")
    const p99 = (xs: number[]) => (xs.length ? percentile(xs, 99) : Number.NaN)
    const tabs = push.tabs ? ` + ${push.tabs} tabs` : ""
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks${tabs}: price age at the desk (headless clients), p50 / p99 (push; polling beside)`,
      console: `${p(push.ages, 50)} / ${p(push.ages, 99)}`,
      baseline: `${p(poll.ages, 50)} / ${p(poll.ages, 99)}`,
      value: `${push.ages.length} and ${poll.ages.length} quotes received`,
      goal: "p99 ≤ 1.2 s and below polling's",
      ok: p99(push.ages) <= 1200 && p99(push.ages) < p99(poll.ages),
    })
    if (push.tabs > 0 && poll.tabs > 0) {
      const errors = [...push.pageErrors.map((e) => `push ${e}`), ...poll.pageErrors.map((e) => `polling ${e}`)]
      bench.rows.push({
        group: GROUP,
        what: `${desks} desks + ${push.tabs} Chromium tabs on /trade: price age on the page, p50 / p99 (push; polling beside)`,
        console: `${p(push.pageAges, 50)} / ${p(push.pageAges, 99)}`,
        baseline: `${p(poll.pageAges, 50)} / ${p(poll.pageAges, 99)}`,
        value: `${push.pageAges.length} and ${poll.pageAges.length} quotes shown${errors.length ? `; ${errors.join("; ")}` : ""}`,
        goal: "p99 ≤ 1.2 s and below polling's",
        ok: p99(push.pageAges) <= 1200 && p99(push.pageAges) < p99(poll.pageAges) && errors.length === 0,
      })
    }
    const ratio = poll.cpuSecondsPerDeskHour > 0 ? push.cpuSecondsPerDeskHour / poll.cpuSecondsPerDeskHour : Number.NaN
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks${tabs}: console CPU seconds per desk-hour (push; polling beside)`,
      console: `${round(push.cpuSecondsPerDeskHour, 1)} s`,
      baseline: `${round(poll.cpuSecondsPerDeskHour, 1)} s`,
      value: `${round(ratio, 2)}× polling's; ${push.requests} and ${poll.requests} requests in the window; the service's CPU beside (not counted) ${round(push.serviceCpuSecondsPerHour, 1)} and ${round(poll.serviceCpuSecondsPerHour, 1)} s per hour`,
      goal: "≤ 0.1× polling's",
      ok: ratio <= 0.1,
    })
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks${tabs}: memory per open stream`,
      console: `${round(push.mibPerStream ?? Number.NaN, 3)} MiB`,
      baseline: "",
      value: "RSS with the streams open less before, per stream",
      goal: "≤ 0.25 MiB",
      ok: (push.mibPerStream ?? Number.POSITIVE_INFINITY) <= 0.25,
    })
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks${tabs}: errors; the service's quotes calls per second (push; polling beside)`,
      console: `${push.errors}; ${round(push.quoteCallsPerSecond, 2)}/s`,
      baseline: `${poll.errors}; ${round(poll.quoteCallsPerSecond, 2)}/s`,
      value: [...push.errorKinds.map((k) => `push: ${k}`), ...poll.errorKinds.map((k) => `polling: ${k}`)].join("; "),
      goal: "0 errors; ≤ 1 call/s",
      ok: push.errors === 0 && poll.errors === 0 && push.quoteCallsPerSecond <= 1.05 && poll.quoteCallsPerSecond <= 1.05,
    })
  }
}
