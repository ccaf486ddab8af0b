// 6, 7. Page weight (first-load JS of each page, gzip -9) and page speed (LCP, CLS, INP in
// headless Chromium, a fresh browser context per load).
import { type Bench, logLine } from "./context"
import { ADMIN, type BenchPage, CLS_GOAL, LCP_GOAL_MS, LCP_GOAL_PAGES, PAGES, TICK_TASK_GOAL_MS, WEIGHT_GOAL_KB, visitorOf } from "./options"
import { Browsing, type PageSpeed } from "./page-speed"
import { type PageWeight, pageWeight } from "./page-weight"
import { onCleanup } from "./processes"
import { signIn } from "./servers"
import { max, median, round } from "./stats"
import type { ConsoleUnderTest } from "./targets"

const adminCookies = new WeakMap<ConsoleUnderTest, Promise<string>>()

/** The session cookie each page is loaded with (none for the sign-in form); the admin signs in once per console. */
async function cookieFor(app: ConsoleUnderTest, page: BenchPage): Promise<string | undefined> {
  const visitor = visitorOf(page)
  if (visitor === "signed out") return undefined
  if (visitor === "trader") return app.cookie
  let admin = adminCookies.get(app)
  if (!admin) {
    admin = signIn(app.origin, ADMIN.email, ADMIN.password)
    adminCookies.set(app, admin)
  }
  return admin
}

/** The page weight rows' group: bytes of the build, which a smoke run judges too (bench.ts). */
export const PAGE_WEIGHT_GROUP = "6. page weight, first-load JS (gzip)"

export async function measurePageWeight(bench: Bench, app: ConsoleUnderTest): Promise<void> {
  logLine("page weight: first-load JS (gzip -9) of each page's <script src>")
  const weights: PageWeight[] = []
  for (const page of PAGES) {
    const weight = await pageWeight(app.origin, page, await cookieFor(app, page))
    weights.push(weight)
    logLine(`  ${page}: ${weight.missing ? "missing" : `${round(weight.gzipBytes / 1024)} kB gzip (${weight.scripts.length} scripts)`}`)
  }
  bench.results.pageWeight = weights
  for (const w of weights) {
    bench.rows.push({
      group: PAGE_WEIGHT_GROUP,
      what: w.path,
      console: w.missing ? "missing" : `${round(w.gzipBytes / 1024)} kB`,
      baseline: "",
      value: w.missing ? "" : `${w.scripts.length} files, ${round(w.rawBytes / 1024)} kB raw`,
      goal: WEIGHT_GOAL_KB[w.path] ? `≤ ${WEIGHT_GOAL_KB[w.path]} kB` : "report",
      ok: WEIGHT_GOAL_KB[w.path] ? !w.missing && w.gzipBytes / 1024 <= (WEIGHT_GOAL_KB[w.path] ?? 0) : !w.missing,
    })
  }
}

export async function measurePageSpeed(bench: Bench, app: ConsoleUnderTest): Promise<void> {
  const { cfg, rows } = bench
  logLine(`page speed: ${cfg.speedRounds} loads each of ${PAGES.join(", ")} in headless Chromium`)
  const browsing = await Browsing.open(app.origin)
  onCleanup(() => browsing.close())
  const speeds = new Map<BenchPage, PageSpeed[]>()
  for (let r = 0; r < cfg.speedRounds; r++) {
    for (const page of PAGES) {
      const cookie = await cookieFor(app, page)
      const result = await browsing.measure(page, { cookie, settleMs: cfg.settleMs, ...(page === "/trade" ? { typeAmount: "0.0125", watchTicksMs: cfg.tickWatchMs } : {}) })
      speeds.set(page, [...(speeds.get(page) ?? []), result])
      app.apiRequests++
      const ticks = result.ticking
        ? `, ticking ${round(result.ticking.ms / 1000, 1)} s: ${result.ticking.quotes} quotes, longest task ${round(result.ticking.longestTask)} ms, blocking ${round(result.ticking.blocking)} ms`
        : ""
      logLine(`  ${page}: ${result.missing ? "missing" : `LCP ${round(result.lcp)} ms, CLS ${round(result.cls, 3)}${result.inp !== undefined ? `, INP ${round(result.inp)} ms (${result.inpNote})` : result.inpNote ? ` (${result.inpNote})` : ""}${ticks}`}`)
    }
  }
  await browsing.close()
  bench.results.pageSpeed = Object.fromEntries(speeds)
  const group = "7. page speed (headless Chromium, localhost)"
  // The CLS goal holds on every page the bench loads: one row per page, then the verdict over all of them.
  const worstCls: { page: BenchPage; cls: number }[] = []
  for (const [page, list] of speeds) {
    const lcpGoal = LCP_GOAL_PAGES.includes(page)
    if (list.some((x) => x.missing)) {
      rows.push({ group, what: `${page}`, console: "missing", baseline: "", value: "", goal: `${lcpGoal ? `LCP ≤ ${LCP_GOAL_MS} ms, ` : ""}CLS ≤ ${CLS_GOAL}`, ok: false })
      worstCls.push({ page, cls: Number.POSITIVE_INFINITY })
      continue
    }
    const lcp = median(list.map((x) => x.lcp))
    const cls = max(list.map((x) => x.cls))
    worstCls.push({ page, cls })
    rows.push({
      group,
      what: `${page} LCP (median of ${list.length} loads)`,
      console: `${round(lcp, 0)} ms`,
      baseline: "",
      value: `worst ${round(max(list.map((x) => x.lcp)), 0)} ms`,
      goal: lcpGoal ? `≤ ${LCP_GOAL_MS} ms` : "report",
      ok: lcp <= LCP_GOAL_MS,
    })
    rows.push({ group, what: `${page} CLS (worst load)`, console: `${round(cls, 3)}`, baseline: "", value: "", goal: `≤ ${CLS_GOAL}`, ok: cls <= CLS_GOAL })
    if (page === "/trade") {
      const inps = list.map((x) => x.inp).filter((x): x is number => x !== undefined)
      const inp = median(inps)
      rows.push({
        group,
        what: `/trade INP, typing an amount (median of ${inps.length} loads)`,
        console: inps.length > 0 ? (inp <= 16 ? "< 16 ms" : `${round(inp, 0)} ms`) : "missing",
        baseline: "",
        value: inps.length > 0 ? `worst ${max(inps) <= 16 ? "< 16" : round(max(inps), 0)} ms` : (list[0]?.inpNote ?? ""),
        goal: "≤ 50 ms",
        ok: inps.length > 0 && inp <= 50,
      })
      // Hands off while the quotes tick: only the prices and countdowns change, and no task
      // holds the thread long enough to delay a key. Void unless quotes did tick.
      const ticking = list.map((x) => x.ticking).filter((x): x is NonNullable<typeof x> => x !== undefined)
      const longest = median(ticking.map((t) => t.longestTask))
      const worstTask = max(ticking.map((t) => t.longestTask))
      const ticked = ticking.length > 0 && ticking.every((t) => t.quotes >= 2)
      rows.push({
        group,
        what: `/trade while quotes tick, hands off: longest task (median of ${ticking.length} loads, ${round((ticking[0]?.ms ?? 0) / 1000, 0)} s each)`,
        console: ticking.length === 0 ? "missing" : longest === 0 ? "< 50 ms" : `${round(longest, 0)} ms`,
        baseline: "",
        value:
          ticking.length === 0
            ? ""
            : `${worstTask === 0 ? "no task ≥ 50 ms in any load" : `worst ${round(worstTask, 0)} ms; blocking ${round(median(ticking.map((t) => t.blocking)), 0)} ms (median)`}; ${Math.min(...ticking.map((t) => t.quotes))}+ quotes each${ticked ? "" : " (did not tick)"}`,
        goal: `≤ ${TICK_TASK_GOAL_MS} ms`,
        ok: ticked && longest <= TICK_TASK_GOAL_MS,
      })
    }
  }
  const over = worstCls.filter((x) => !(x.cls <= CLS_GOAL))
  const worst = worstCls.reduce((a, b) => (b.cls > a.cls ? b : a), { page: PAGES[0], cls: 0 })
  rows.push({
    group,
    what: `CLS on every page it loads (${worstCls.length} pages)`,
    console: Number.isFinite(worst.cls) ? `worst ${round(worst.cls, 3)}` : "missing",
    baseline: "",
    value: over.length > 0 ? `over: ${over.map((x) => x.page).join(", ")}` : worst.cls > 0 ? `worst on ${worst.page}` : "no shift on any page",
    goal: `≤ ${CLS_GOAL}`,
    ok: over.length === 0,
  })
}
