// 13. Push, not poll (npm run bench -- --only push): issue 37's GET /api/stream against the
// polling it replaces, side by side in one run, on one fresh console in sandbox mode (the
// embedded sandbox is the service). For each count of open desks (50 and 300; 3 in a smoke
// run) and each way:
//   polling: each desk asks what an open /trade asked before the stream, at the same
//     intervals: /api/quotes (every market) every 1 s, /api/notifications every 2.5 s,
//     the pending-approvals count every 5 s, the sandbox's fault status every 15 s;
//   push: each desk holds one GET /api/stream?quotes=all (a headless stream client) and
//     still polls what the stream does not cover: /api/notifications every 2.5 s and the
//     pending-approvals count every 5 s.
// Measured over a window after a warm-up: the price age at the desk (from the quote's
// created_at at the service to the moment the desk has it: an answer's or an event's
// arrival), p50 and p99 over every quote received; the console's CPU seconds per
// desk-hour (its process group's CPU time over the window); memory per open stream (RSS
// with the streams open, less RSS before they opened, per stream); errors (non-2xx
// answers, failed or ended streams); and the service's quotes calls per second (the
// console's own count, GET /api/metrics). Every loop is bounded by the window.
import http from "node:http"
import { randomBytes } from "node:crypto"
import { type Bench, logLine } from "./context"
import { keepAliveAgent, send } from "./http"
import { groupCpuMs, groupMemory } from "./processes"
import { percentile, round, sleep } from "./stats"
import { type BenchClient, type ConsoleUnderTest, startConsoleUnderTest } from "./targets"

const GROUP = "13. push, not poll: one stream per desk against polling (GET /api/stream)"

export interface PushSettings {
  desks: number[]
  warmupMs: number
  windowMs: number
}

export const PUSH_FULL: PushSettings = { desks: [50, 300], warmupMs: 5_000, windowMs: 30_000 }
export const PUSH_SMOKE: PushSettings = { desks: [3], warmupMs: 1_000, windowMs: 3_000 }

type Way = "polling" | "push"

interface Outcome {
  way: Way
  desks: number
  ages: number[]
  cpuSecondsPerDeskHour: number
  /** Push only: MiB per open stream. */
  mibPerStream: number | null
  errors: number
  quoteCallsPerSecond: number
  requests: number
}

interface Quote {
  created_at: string
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
async function poller(origin: string, path: string, periodMs: number, until: number, headers: Record<string, string>, agent: http.Agent, tally: { requests: number; errors: number }, onBody?: (body: Buffer, at: number) => void): Promise<void> {
  // Desks do not start in step: each begins at a random point of its period.
  // No wait runs past the window's end.
  const left = () => Math.max(0, until - Date.now())
  await sleep(Math.min(Math.random() * periodMs, left()))
  while (Date.now() < until) {
    const started = Date.now()
    try {
      const res = await send(origin, { path, headers }, agent)
      tally.requests++
      if (res.status < 200 || res.status >= 300) tally.errors++
      else onBody?.(res.body, Date.now())
    } catch {
      tally.errors++
    }
    await sleep(Math.min(Math.max(0, periodMs - (Date.now() - started)), left()))
  }
}

interface StreamClient {
  close(): void
  opened: Promise<void>
}

/** One headless stream client: reads SSE events, handing each `quotes` event's items to `onQuotes`. */
function streamClient(origin: string, cookie: string, tally: { errors: number }, onQuotes: (items: Quote[], at: number) => void): StreamClient {
  let closedByUs = false
  let ready: () => void = () => undefined
  const opened = new Promise<void>((resolve) => (ready = resolve))
  const url = new URL("/api/stream?quotes=all", origin)
  const req = http.get(url, { headers: { cookie, accept: "text/event-stream" }, agent: false }, (res) => {
    if (res.statusCode !== 200) {
      tally.errors++
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
        if (name === "ready") ready()
        else if (name === "quotes" && data) onQuotes((JSON.parse(data) as { items: Quote[] }).items, Date.now())
        else if (name === "end") tally.errors++
      }
    })
    res.on("end", () => {
      if (!closedByUs) tally.errors++
      ready()
    })
  })
  req.on("error", () => {
    if (!closedByUs) tally.errors++
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

async function runOnce(app: ConsoleUnderTest, metricsToken: string, way: Way, desks: number, cfg: PushSettings): Promise<Outcome> {
  const headers = app.headers
  const tally = { requests: 0, errors: 0 }
  const ages: number[] = []
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
      loops.push(poller(app.origin, "/api/sandbox/status", 15_000, end, headers, agent, tally))
    }
    loops.push(poller(app.origin, "/api/notifications", 2500, end, headers, agent, tally))
    loops.push(poller(app.origin, "/api/approvals?state=PENDING&limit=1", 5000, end, headers, agent, tally))
  }
  await sleep(cfg.warmupMs)
  measuring = true
  const rssOpen = groupMemory(app.server.pid).rssMiB
  const cpu0 = groupCpuMs(app.server.pid)
  const calls0 = await quoteCalls(app, metricsToken)
  const t0 = Date.now()
  const requests0 = tally.requests
  await Promise.all(loops)
  const seconds = (Date.now() - t0) / 1000
  const cpuMs = groupCpuMs(app.server.pid) - cpu0
  const calls = (await quoteCalls(app, metricsToken)) - calls0
  for (const s of streams) s.close()
  agent.destroy()
  await sleep(500)
  return {
    way,
    desks,
    ages,
    cpuSecondsPerDeskHour: cpuMs / 1000 / desks / (seconds / 3600),
    mibPerStream: way === "push" ? Math.max(0, rssOpen - rssBefore) / desks : null,
    errors: tally.errors,
    quoteCallsPerSecond: calls / seconds,
    requests: tally.requests - requests0,
  }
}

export async function measurePush(bench: Bench, client: BenchClient, cfg: PushSettings): Promise<void> {
  const metricsToken = randomBytes(24).toString("base64url")
  const app = await startConsoleUnderTest(bench, client, { name: "console-push", label: "sandbox mode (push)", env: { METRICS_TOKEN: metricsToken } })
  const outcomes: Outcome[] = []
  try {
    for (const desks of cfg.desks) {
      for (const way of ["polling", "push"] as const) {
        logLine(`push: ${desks} desks, ${way}, ${Math.round((cfg.warmupMs + cfg.windowMs) / 1000)} s`)
        outcomes.push(await runOnce(app, metricsToken, way, desks, cfg))
      }
    }
  } finally {
    await app.server.stop(20_000)
  }
  bench.results.push = outcomes.map((o) => ({ ...o, ages: undefined, ageP50Ms: percentile(o.ages, 50), ageP99Ms: percentile(o.ages, 99), samples: o.ages.length }))
  for (const desks of cfg.desks) {
    const poll = outcomes.find((o) => o.desks === desks && o.way === "polling")
    const push = outcomes.find((o) => o.desks === desks && o.way === "push")
    if (!poll || !push) continue
    const p = (o: Outcome, q: number) => (o.ages.length ? `${round(percentile(o.ages, q) / 1000, 2)} s` : "none")
    const pushP99 = push.ages.length ? percentile(push.ages, 99) : Number.NaN
    const pollP99 = poll.ages.length ? percentile(poll.ages, 99) : Number.NaN
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks: price age at the desk, p50 / p99 (push; polling beside)`,
      console: `${p(push, 50)} / ${p(push, 99)}`,
      baseline: `${p(poll, 50)} / ${p(poll, 99)}`,
      value: `${push.ages.length} and ${poll.ages.length} quotes received`,
      goal: "p99 ≤ 1.2 s and below polling's",
      ok: pushP99 <= 1200 && pushP99 < pollP99,
    })
    const ratio = poll.cpuSecondsPerDeskHour > 0 ? push.cpuSecondsPerDeskHour / poll.cpuSecondsPerDeskHour : Number.NaN
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks: console CPU seconds per desk-hour (push; polling beside)`,
      console: `${round(push.cpuSecondsPerDeskHour, 1)} s`,
      baseline: `${round(poll.cpuSecondsPerDeskHour, 1)} s`,
      value: `${round(ratio, 2)}× polling's; ${push.requests} and ${poll.requests} requests in the window`,
      goal: "≤ 0.1× polling's",
      ok: ratio <= 0.1,
    })
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks: memory per open stream`,
      console: `${round(push.mibPerStream ?? Number.NaN, 3)} MiB`,
      baseline: "",
      value: "RSS with the streams open less before, per stream",
      goal: "≤ 0.25 MiB",
      ok: (push.mibPerStream ?? Number.POSITIVE_INFINITY) <= 0.25,
    })
    bench.rows.push({
      group: GROUP,
      what: `${desks} desks: errors; the service's quotes calls per second (push; polling beside)`,
      console: `${push.errors}; ${round(push.quoteCallsPerSecond, 2)}/s`,
      baseline: `${poll.errors}; ${round(poll.quoteCallsPerSecond, 2)}/s`,
      value: "",
      goal: "0 errors; ≤ 1 call/s",
      ok: push.errors === 0 && poll.errors === 0 && push.quoteCallsPerSecond <= 1.05 && poll.quoteCallsPerSecond <= 1.05,
    })
  }
}
