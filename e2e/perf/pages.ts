// 6, 7. Page weight (first-load JS of each page, gzip -9) and page speed (LCP, CLS, INP in
// headless Chromium, a fresh browser context per load).
import { type Bench, logLine } from "./context"
import { PAGES, WEIGHT_GOAL_KB } from "./options"
import { Browsing, type PageSpeed } from "./page-speed"
import { type PageWeight, pageWeight } from "./page-weight"
import { onCleanup } from "./processes"
import { max, median, round } from "./stats"
import type { ConsoleUnderTest } from "./targets"

export async function measurePageWeight(bench: Bench, app: ConsoleUnderTest): Promise<void> {
  logLine("page weight: first-load JS (gzip -9) of each page's <script src>")
  const weights: PageWeight[] = []
  for (const page of PAGES) {
    const weight = await pageWeight(app.origin, page, page === "/sign-in" ? undefined : app.cookie)
    weights.push(weight)
    logLine(`  ${page}: ${weight.missing ? "missing" : `${round(weight.gzipBytes / 1024)} kB gzip (${weight.scripts.length} scripts)`}`)
  }
  bench.results.pageWeight = weights
  for (const w of weights) {
    bench.rows.push({
      group: "6. page weight, first-load JS (gzip)",
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
  logLine(`page speed: ${cfg.speedRounds} loads each of /, /trade and /conversions in headless Chromium`)
  const browsing = await Browsing.open(app.origin, app.cookie)
  onCleanup(() => browsing.close())
  const speeds = new Map<string, PageSpeed[]>()
  for (let r = 0; r < cfg.speedRounds; r++) {
    for (const page of ["/", "/trade", "/conversions"]) {
      const result = await browsing.measure(page, { settleMs: cfg.settleMs, ...(page === "/trade" ? { typeAmount: "0.0125" } : {}) })
      speeds.set(page, [...(speeds.get(page) ?? []), result])
      app.apiRequests++
      logLine(`  ${page}: ${result.missing ? "missing" : `LCP ${round(result.lcp)} ms, CLS ${round(result.cls, 3)}${result.inp !== undefined ? `, INP ${round(result.inp)} ms (${result.inpNote})` : result.inpNote ? ` (${result.inpNote})` : ""}`}`)
    }
  }
  await browsing.close()
  bench.results.pageSpeed = Object.fromEntries(speeds)
  for (const [page, list] of speeds) {
    const missing = list.some((x) => x.missing)
    const group = "7. page speed (headless Chromium, localhost)"
    if (missing) {
      rows.push({ group, what: `${page}`, console: "missing", baseline: "", value: "", goal: "LCP ≤ 800 ms, CLS ≤ 0.05", ok: false })
      continue
    }
    const lcp = median(list.map((x) => x.lcp))
    const cls = max(list.map((x) => x.cls))
    rows.push({ group, what: `${page} LCP (median of ${list.length} loads)`, console: `${round(lcp, 0)} ms`, baseline: "", value: `worst ${round(max(list.map((x) => x.lcp)), 0)} ms`, goal: "≤ 800 ms", ok: lcp <= 800 })
    rows.push({ group, what: `${page} CLS (worst load)`, console: `${round(cls, 3)}`, baseline: "", value: "", goal: "≤ 0.05", ok: cls <= 0.05 })
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
    }
  }
}
