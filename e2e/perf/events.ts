// 12. Events: what following orchestrations costs the service, counted on its side of the
// wire. A fresh console in upstream mode (Orchestrations API) behind a counting proxy, one
// trader's tab polling /api/notifications every 2.5 s as the browser does, N orchestrations
// placed, each on its record page, which asks GET /api/conversions/{id} every second until
// the status is final (as the browser does); until every one is final on its page and
// announced: the service calls that followed them (GET of an orchestration; GET /v2/events),
// with the event reader off (every ask goes to the service, as before events) and then on.
// With the reader on, the webhook receiver too: N hints at 100 a second, each answer's time
// (p50, p99; client side, keep-alive, on 127.0.0.1) and the event reads the service saw
// meanwhile, against what the reader's pace allows (one read per 0.5 s at most, plus the
// 5 s clock).
import { randomBytes, randomUUID } from "node:crypto"
import bcrypt from "bcryptjs"
import { type Bench, logLine } from "./context"
import { startCountingProxy } from "./counting-proxy"
import { expectOk, json, keepAliveAgent, send } from "./http"
import { freePort, groupCpuMs, loadAverage, onCleanup, tempDir } from "./processes"
import { signIn, startConsole } from "./servers"
import { median, percentile, round, sleep } from "./stats"
import type { BenchClient, DirectSandbox } from "./targets"

const POLL_MS = 2500
const GROUP = "12. events: following orchestrations, the webhook"
/** The record page's pace (useConversionQuery). */
const RECORD_POLL_MS = 1000
const FINAL = new Set(["COMPLETED", "FAILED", "REJECTED"])
/** The reader's least gap between two reads woken by hints (EVENT_READER_DEFAULTS.wakeGapMs), and its clock. */
const WAKE_GAP_MS = 500
const EVENTS_POLL_MS = 5000

interface Hints {
  sent: number
  accepted: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  seconds: number
  eventReads: number
  /** The reads the reader's pace allows in that time. */
  paceAllows: number
  /** The same number of GET /api/health/live (touches nothing) at the same pace, right after: what any route costs here. */
  liveP50Ms: number
  liveP99Ms: number
  /** The console's CPU time (its process group, /proc) per hint, the reads they woke included, and per GET /api/health/live: what the machine's load cannot bend. */
  cpuMsPerHint: number
  cpuMsPerLive: number
  /** The machine's 1-minute load average when the hints began. */
  load: number
}

interface Followed {
  mode: "off" | "on"
  orchestrations: number
  announced: number
  orchestrationReads: number
  eventReads: number
  perOrchestration: number
  seconds: number
  /** Median time from placement until the record page showed the final status. */
  pageFinalSeconds: number
  hints: Hints | null
}

async function follow(bench: Bench, sandbox: DirectSandbox, client: BenchClient, mode: "off" | "on", count: number): Promise<Followed> {
  const proxy = await startCountingProxy(sandbox.origin, await freePort(4600, 4699))
  onCleanup(() => proxy.close())
  const password = randomBytes(12).toString("base64url")
  const webhookKey = randomBytes(32).toString("base64url")
  const users = JSON.stringify([{ email: "bench-events@example.com", role: "trader", passwordHash: bcrypt.hashSync(password, 8) }])
  const app = await startConsole({
    name: `console-events-${mode}`,
    distDir: bench.distDir,
    port: await freePort(3600, 3699),
    dataDir: tempDir("console-bench-events-"),
    logDir: bench.logDir,
    env: {
      UPSTREAM_BASE_URL: `${proxy.origin}/sandbox/v2`,
      UPSTREAM_TOKEN_URL: `${proxy.origin}/sandbox/oauth2/token`,
      UPSTREAM_CLIENT_ID: client.clientId,
      UPSTREAM_CLIENT_SECRET: client.clientSecret,
      UPSTREAM_CONVERSIONS_API: "orchestrations",
      EVENTS_POLL_MS: mode === "on" ? String(EVENTS_POLL_MS) : "0",
      ...(mode === "on" ? { WEBHOOK_API_KEY: webhookKey } : {}),
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      CONSOLE_USERS: users,
    },
  })
  try {
    const cookie = await signIn(app.origin, "bench-events@example.com", password)
    const headers = { cookie, origin: app.origin }
    const poll = async (since: string | null) =>
      json(expectOk(await send(app.origin, { path: `/api/notifications${since ? `?since=${encodeURIComponent(since)}` : ""}`, headers }), "GET /api/notifications")) as {
        events: { kind: string; record_id: string; state: string }[]
        cursor: string
      }
    let { cursor } = await poll(null)
    // The reader's first read (everything the service has) is not this measurement's.
    if (mode === "on") await new Promise((resolve) => setTimeout(resolve, 6000))
    const t0 = Date.now()
    const placed = new Set<string>()
    const pages: Promise<number>[] = []
    /** A record page: asks every second until the status is final; answers when it showed it, from placement. */
    const recordPage = async (id: string, placedAt: number): Promise<number> => {
      const deadline = placedAt + 120_000
      while (Date.now() < deadline) {
        const res = await send(app.origin, { path: `/api/conversions/${id}`, headers })
        if (res.status === 200 && FINAL.has((json(res) as { status: string }).status)) return (Date.now() - placedAt) / 1000
        await sleep(RECORD_POLL_MS)
      }
      bench.failures.push(`events (${mode}): the record page of ${id} never showed a final status`)
      return Number.NaN
    }
    for (let i = 0; i < count; i++) {
      const res = expectOk(
        await send(app.origin, {
          method: "POST",
          path: "/api/conversions",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ profile_id: sandbox.profile, amount: "1.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() }),
        }),
        "POST /api/conversions",
      )
      const id = (json(res) as { id: string }).id
      placed.add(id)
      pages.push(recordPage(id, Date.now()))
    }
    const announced = new Set<string>()
    const deadline = Date.now() + 120_000
    while (announced.size < placed.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      const page = await poll(cursor)
      for (const e of page.events) if (placed.has(e.record_id)) announced.add(e.record_id)
      cursor = page.cursor
    }
    const pageFinal = await Promise.all(pages)
    const t1 = Date.now()
    const orchestrationReads = proxy.count((a) => a.method === "GET" && /\/orchestration\/orchestrations\/[^/]+$/.test(a.path), t0, t1)
    const eventReads = proxy.count((a) => a.method === "GET" && /\/v2\/events$/.test(a.path), t0, t1)
    if (announced.size < placed.size) bench.failures.push(`events (${mode}): ${placed.size - announced.size} of ${placed.size} orchestrations never announced`)
    const hints = mode === "on" ? await hintFlood(bench, app.origin, app.server.pid, proxy, webhookKey) : null
    return {
      mode,
      orchestrations: placed.size,
      announced: announced.size,
      orchestrationReads,
      eventReads,
      perOrchestration: (orchestrationReads + eventReads) / Math.max(1, placed.size),
      seconds: (t1 - t0) / 1000,
      pageFinalSeconds: median(pageFinal.filter((s) => !Number.isNaN(s))),
      hints,
    }
  } finally {
    await app.server.stop(20_000)
    await proxy.close()
  }
}

/** Hints at the webhook receiver, 100 a second: their answer times, and the event reads the service saw meanwhile. */
async function hintFlood(bench: Bench, origin: string, pid: number, proxy: Awaited<ReturnType<typeof startCountingProxy>>, key: string): Promise<Hints> {
  const sent = bench.args.smoke ? 100 : 1000
  const agent = keepAliveAgent(16)
  const body = () => JSON.stringify({ id: randomUUID(), type: "orchestration.completed", created_at: new Date().toISOString(), source: "com.paxos" })
  const hint = () => send(origin, { method: "POST", path: "/api/webhooks/service", headers: { "content-type": "application/json", "x-api-key": key }, body: body() }, agent)
  // Warm: the route's first answer compiles nothing under next start, but opens the sockets.
  for (let i = 0; i < 5; i++) await hint()
  await sleep(EVENTS_POLL_MS)
  const load = loadAverage()[0]
  const cpu0 = groupCpuMs(pid)
  const h0 = Date.now()
  const answers: Promise<{ status: number; ms: number }>[] = []
  for (let i = 0; i < sent; i++) {
    const due = h0 + i * 10
    if (due > Date.now()) await sleep(due - Date.now())
    answers.push(hint().then((r) => ({ status: r.status, ms: r.ms })))
  }
  const done = await Promise.all(answers)
  // A read the last hints asked for may start up to WAKE_GAP_MS after them.
  await sleep(WAKE_GAP_MS + 500)
  const h1 = Date.now()
  const cpu1 = groupCpuMs(pid)
  agent.destroy()
  const ms = done.map((d) => d.ms)
  const eventReads = proxy.count((a) => a.method === "GET" && /\/v2\/events$/.test(a.path), h0, h1)
  // The reference: a route that touches nothing, at the same pace on the same machine.
  const liveAgent = keepAliveAgent(16)
  const l0 = Date.now()
  const lives: Promise<number>[] = []
  for (let i = 0; i < sent; i++) {
    const due = l0 + i * 10
    if (due > Date.now()) await sleep(due - Date.now())
    lives.push(send(origin, { path: "/api/health/live" }, liveAgent).then((r) => r.ms))
  }
  const liveMs = await Promise.all(lives)
  await sleep(WAKE_GAP_MS + 500)
  const cpu2 = groupCpuMs(pid)
  liveAgent.destroy()
  const windowMs = h1 - h0
  return {
    sent,
    accepted: done.filter((d) => d.status === 202).length,
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    maxMs: Math.max(...ms),
    seconds: windowMs / 1000,
    eventReads,
    paceAllows: Math.ceil(windowMs / WAKE_GAP_MS) + Math.ceil(windowMs / EVENTS_POLL_MS) + 1,
    liveP50Ms: percentile(liveMs, 50),
    liveP99Ms: percentile(liveMs, 99),
    cpuMsPerHint: (cpu1 - cpu0) / sent,
    cpuMsPerLive: (cpu2 - cpu1) / sent,
    load,
  }
}

export async function measureEvents(bench: Bench, sandbox: DirectSandbox, client: BenchClient): Promise<void> {
  const count = bench.args.smoke ? 3 : 10
  logLine(`events: ${count} orchestrations, each on its record page, followed by one notifications tab, the event reader off and then on`)
  const runs: Followed[] = []
  for (const mode of ["off", "on"] as const) {
    const run = await follow(bench, sandbox, client, mode, count)
    runs.push(run)
    logLine(
      `  reader ${mode}: ${run.announced}/${run.orchestrations} announced in ${round(run.seconds)} s, final on their pages after ${round(run.pageFinalSeconds)} s (median); ` +
        `the service received ${run.orchestrationReads} orchestration reads and ${run.eventReads} event reads (${round(run.perOrchestration, 2)} per orchestration)`,
    )
    if (run.hints)
      logLine(
        `  webhook: ${run.hints.accepted}/${run.hints.sent} hints answered 202 in ${round(run.hints.seconds)} s, p50 ${round(run.hints.p50Ms)} ms, p99 ${round(run.hints.p99Ms)} ms (max ${round(run.hints.maxMs)}); ` +
          `${run.hints.eventReads} event reads at the service meanwhile (the pace allows ${run.hints.paceAllows}); GET /api/health/live at the same pace: p50 ${round(run.hints.liveP50Ms)} ms, p99 ${round(run.hints.liveP99Ms)} ms; ` +
          `CPU per hint ${round(run.hints.cpuMsPerHint, 2)} ms, per live ${round(run.hints.cpuMsPerLive, 2)} ms; load ${round(run.hints.load, 1)} at the start`,
      )
  }
  bench.results.events = runs
  const [off, on] = runs as [Followed, Followed]
  bench.rows.push({
    group: GROUP,
    what: `service calls per settled orchestration (${count} placed, each on its record page asking every 1 s, one tab polling notifications): reader on (baseline: off, every ask to the service)`,
    console: `${round(on.perOrchestration, 2)}`,
    baseline: `${round(off.perOrchestration, 2)}`,
    value: `${on.orchestrationReads} orchestration reads (off: ${off.orchestrationReads}), ${on.eventReads} event reads in ${round(on.seconds)} s; final on the page after ${round(on.pageFinalSeconds)} s (off: ${round(off.pageFinalSeconds)} s)`,
    goal: "fewer with the reader on",
    ok: on.perOrchestration < off.perOrchestration && on.announced === on.orchestrations,
  })
  const hints = on.hints
  if (hints) {
    bench.rows.push({
      group: GROUP,
      what: `webhook receiver: ${hints.sent} hints at 100/s, answer time p99 (baseline: GET /api/health/live, which touches nothing, at the same pace)`,
      console: `${round(hints.p99Ms)} ms`,
      baseline: `${round(hints.liveP99Ms)} ms`,
      value:
        `p50 ${round(hints.p50Ms)} ms (live: ${round(hints.liveP50Ms)} ms), max ${round(hints.maxMs)} ms; ${hints.accepted}/${hints.sent} answered 202; ` +
        `CPU ${round(hints.cpuMsPerHint, 2)} ms per hint, the reads it woke included (live: ${round(hints.cpuMsPerLive, 2)} ms); load ${round(hints.load, 1)}`,
      goal: "p99 ≤ 50 ms",
      ok: hints.p99Ms <= 50 && hints.accepted === hints.sent,
    })
    bench.rows.push({
      group: GROUP,
      what: `event reads the service saw during those ${hints.sent} hints (${round(hints.seconds)} s)`,
      console: `${hints.eventReads}`,
      baseline: "",
      value: `the reader's pace allows ${hints.paceAllows} (one per 0.5 s, plus the 5 s clock)`,
      goal: "≤ the reader's pace",
      ok: hints.eventReads <= hints.paceAllows,
    })
  }
}
