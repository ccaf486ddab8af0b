// LCP, CLS and INP in headless Chromium (the e2e suite's browser and flags), read with
// PerformanceObserver: largest-contentful-paint, layout-shift and event timing entries.
import { existsSync } from "node:fs"
import { type Browser, type BrowserContext, type Locator, type Page, chromium, devices } from "@playwright/test"
import playwrightConfig from "../../playwright.config"
import { cumulativeLayoutShift, sleep } from "./stats"

interface Collected {
  lcp: number | null
  shifts: { t: number; v: number }[]
  interactions: { id: number; name: string; start: number; duration: number }[]
  /** The main thread's tasks of 50 ms or more. */
  longTasks: { start: number; duration: number }[]
}

declare global {
  interface Window {
    __bench?: Collected
  }
}

// Installed before any script of the page runs (Playwright injects it outside the page's CSP).
function collector(): void {
  const state: Collected = { lcp: null, shifts: [], interactions: [], longTasks: [] }
  window.__bench = state
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.lcp = entry.startTime
  }).observe({ type: "largest-contentful-paint", buffered: true })
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
      if (!entry.hadRecentInput) state.shifts.push({ t: entry.startTime, v: entry.value })
    }
  }).observe({ type: "layout-shift", buffered: true })
  // 16 ms is the lowest threshold the API allows; faster interactions are not reported.
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { interactionId: number })[]) {
      if (entry.interactionId > 0) {
        state.interactions.push({ id: entry.interactionId, name: entry.name, start: entry.startTime, duration: entry.duration })
      }
    }
  }).observe({ type: "event", buffered: true, durationThreshold: 16 } as PerformanceObserverInit)
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push({ start: entry.startTime, duration: entry.duration })
  }).observe({ type: "longtask", buffered: true })
}

/** What the main thread did while the desk's quotes ticked, hands off, for `ms`. */
export interface Ticking {
  ms: number
  /** Distinct quotes the BUY row showed meanwhile (the service quotes every second). */
  quotes: number
  /** The longest task (ms); 0 when none reached the 50 ms long-task floor. */
  longestTask: number
  /** The time tasks held the main thread past 50 ms each (total blocking time), ms. */
  blocking: number
}

export interface PageSpeed {
  path: string
  missing: boolean
  /** ms from navigation start. */
  lcp: number
  cls: number
  /** Worst interaction while typing an amount (ms); 16 when none reached the 16 ms reporting floor. */
  inp?: number
  inpNote?: string
  ticking?: Ticking
}

export class Browsing {
  private constructor(
    private readonly browser: Browser,
    private readonly origin: string,
  ) {}

  static async open(origin: string): Promise<Browsing> {
    const launch = playwrightConfig.use?.launchOptions ?? {}
    const executablePath = launch.executablePath && existsSync(launch.executablePath) ? launch.executablePath : undefined
    const browser = await chromium.launch({ ...launch, executablePath, headless: true })
    return new Browsing(browser, origin)
  }

  async close(): Promise<void> {
    await this.browser.close()
  }

  /** A fresh context per load: empty HTTP and code caches, as on a first visit; signed in with `sessionCookie` when given. */
  private async freshContext(sessionCookie: string | undefined): Promise<BrowserContext> {
    const context = await this.browser.newContext({ ...devices["Desktop Chrome"], baseURL: this.origin })
    if (sessionCookie) {
      const [name = "", ...rest] = sessionCookie.split("=")
      await context.addCookies([{ name, value: rest.join("="), url: this.origin }])
    }
    await context.addInitScript(collector)
    return context
  }

  /**
   * Loads `path` in a fresh context (a first visit: nothing cached; signed in with `cookie`, signed out without), waits for the load
   * event and `settleMs` more, then reads LCP and CLS; with `typeAmount`, types it into the page's amount field first (one
   * interaction per key) and reports the worst interaction.
   */
  async measure(path: string, options: { cookie?: string | undefined; settleMs: number; typeAmount?: string; watchTicksMs?: number }): Promise<PageSpeed> {
    const context = await this.freshContext(options.cookie)
    const page = await context.newPage()
    try {
      const res = await page.goto(path, { waitUntil: "load" })
      if (!res || res.status() === 404) return { path, missing: true, lcp: Number.NaN, cls: Number.NaN }
      if (!res.ok()) throw new Error(`GET ${path}: HTTP ${res.status()}`)
      if (new URL(page.url()).pathname !== new URL(path, this.origin).pathname) {
        throw new Error(`GET ${path} ended on ${page.url()} (not signed in?)`)
      }
      await sleep(options.settleMs)
      // LCP stops at the first input: read it before typing.
      const beforeInput = await read(page)
      const ticking = options.watchTicksMs === undefined ? undefined : await watchTicks(page, options.watchTicksMs)
      let inp: number | undefined
      let inpNote: string | undefined
      if (options.typeAmount !== undefined) {
        const field = (await amountField(page)) ?? (await openTicket(page))
        if (!field) {
          inpNote = "no amount field on the page"
        } else {
          await field.click()
          await page.keyboard.press("Control+A")
          await page.keyboard.press("Backspace")
          await sleep(300)
          // Only the keystrokes count: clicks to open the form happened before this.
          const typingFrom = await page.evaluate(() => performance.now())
          for (const key of options.typeAmount) {
            await page.keyboard.type(key)
            await sleep(120)
          }
          await sleep(500)
          const after = await read(page)
          const worst = new Map<number, number>()
          for (const i of after.interactions) {
            if (i.start >= typingFrom) worst.set(i.id, Math.max(worst.get(i.id) ?? 0, i.duration))
          }
          const durations = [...worst.values()]
          // Fewer than 50 interactions: INP is the worst one.
          inp = durations.length > 0 ? Math.max(...durations) : 16
          inpNote = durations.length > 0 ? `${durations.length} interactions ≥ 16 ms` : "every interaction under 16 ms"
        }
      }
      return {
        path,
        missing: false,
        lcp: beforeInput.lcp ?? Number.NaN,
        cls: cumulativeLayoutShift(beforeInput.shifts),
        ...(inp !== undefined ? { inp } : {}),
        ...(inpNote ? { inpNote } : {}),
        ...(ticking ? { ticking } : {}),
      }
    } finally {
      await context.close()
    }
  }
}

/** Watches the desk for `ms` with nobody touching it: the quotes it shows, and the long tasks meanwhile. */
async function watchTicks(page: Page, ms: number): Promise<Ticking> {
  const buy = page.getByTestId("quote-BUY")
  await buy.waitFor({ state: "visible", timeout: 10_000 })
  const from = await page.evaluate(() => performance.now())
  const seen = new Set<string>()
  const until = Date.now() + ms
  while (Date.now() < until) {
    const id = await buy.getAttribute("data-quote-id")
    if (id) seen.add(id)
    await sleep(250)
  }
  const to = await page.evaluate(() => performance.now())
  const tasks = (await read(page)).longTasks.filter((t) => t.start >= from && t.start < to)
  return {
    ms: to - from,
    quotes: seen.size,
    longestTask: tasks.reduce((a, t) => Math.max(a, t.duration), 0),
    blocking: tasks.reduce((a, t) => a + t.duration - 50, 0),
  }
}

async function read(page: Page): Promise<Collected> {
  const collected = await page.evaluate(() => window.__bench)
  if (!collected) throw new Error("the performance collector did not run")
  return collected
}

/** /trade shows the amount field once a quote is chosen: choose the BUY quote. */
async function openTicket(page: Page): Promise<Locator | null> {
  const choose = page.getByTestId("choose-BUY").or(page.getByRole("button", { name: /^buy\b/i })).first()
  try {
    await choose.waitFor({ state: "visible", timeout: 10_000 })
  } catch {
    return null
  }
  await choose.click()
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const field = await amountField(page)
    if (field) return field
    await sleep(100)
  }
  return null
}

/** The page's amount input: labelled "amount" (base or quote amount), else a decimal input. */
async function amountField(page: Page): Promise<Locator | null> {
  const candidates = [
    page.getByLabel(/amount/i).and(page.locator("input")),
    page.locator('input[name*="amount" i]'),
    page.locator('input[inputmode="decimal"]'),
  ]
  for (const candidate of candidates) {
    const count = await candidate.count()
    for (let i = 0; i < count; i++) {
      const field = candidate.nth(i)
      if ((await field.isVisible()) && (await field.isEditable())) return field
    }
  }
  return null
}
