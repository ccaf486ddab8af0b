// The scale-out section (npm run bench -- --only scale): three production console instances
// on one Postgres, pointed at the standalone sandbox (its rate limits on) through the
// counting proxy, so every figure is what the service received:
//   a burst of executions spread over the three lands at ≤ 10/s, none refused by the service,
//   each placed exactly once (a caller the console asks to wait retries with the same ref_id);
//   quote readers on all three cause ≤ 1 quotes call per second;
//   stopping the instance that polls quotes keeps them flowing within 3 s.
// Everything listens on 127.0.0.1 and every loop is bounded by a count or a deadline.
import { randomBytes, randomUUID } from "node:crypto"
import bcrypt from "bcryptjs"
import { z } from "zod"
import { UPSTREAM_SCOPES } from "../../lib/schemas/scopes"
import { profilesSchema } from "./shapes"
import { type Arrival, isQuotesCall, startCountingProxy } from "./counting-proxy"
import { expectOk, json, keepAliveAgent, send } from "./http"
import { pollers } from "./load"
import { createBenchDatabase, scaleDatabaseServer } from "./postgres"
import { freePort, onCleanup, tempDir } from "./processes"
import type { SectionContext } from "./report"
import { type ConsoleServer, sandboxToken, signIn, startConsole, startSandbox } from "./servers"
import { busiestSecond, round, sleep } from "./stats"

export interface ScaleSettings {
  instances: number
  executions: number
  readers: number
  readerPeriodMs: number
  readSeconds: number
  /** How long readers keep reading after the poller instance stopped. */
  handoverSeconds: number
}

export const SCALE_FULL: ScaleSettings = { instances: 3, executions: 60, readers: 50, readerPeriodMs: 250, readSeconds: 20, handoverSeconds: 8 }
export const SCALE_SMOKE: ScaleSettings = { instances: 3, executions: 15, readers: 10, readerPeriodMs: 250, readSeconds: 3, handoverSeconds: 6 }

const GROUP = "9. scale-out: three instances on one Postgres, counted at the service"
const PROFILE = "Treasury"
const BASE_AMOUNT = "0.0001"
const quotesSchema = z.object({ items: z.array(z.object({ id: z.string(), side: z.string() })), fetched_at: z.string() })
const executionsPageSchema = z.object({
  items: z.array(z.object({ id: z.string(), ref_id: z.string().optional() })),
  next_page_cursor: z.string().optional(),
})

const isExecutionCreate = (a: Arrival) => a.method === "POST" && /\/quote-executions$/.test(a.path)

async function scrape(app: ConsoleServer, metricsToken: string): Promise<string> {
  const res = expectOk(await send(app.origin, { path: "/api/metrics", headers: { authorization: `Bearer ${metricsToken}` } }), "GET /api/metrics")
  return res.body.toString("utf8")
}

/** Whether this instance says (GET /api/metrics) that it is the one polling quotes. */
async function isPoller(app: ConsoleServer, metricsToken: string): Promise<boolean> {
  return /^console_quote_poller 1$/m.test(await scrape(app, metricsToken))
}

/** Executions this instance let through its local fallback limiter instead of the shared one. */
async function localExecutions(app: ConsoleServer, metricsToken: string): Promise<number> {
  const line = /^console_limiter_wait_seconds_count\{bucket="quote_executions",limiter="local"\} (\d+)$/m.exec(await scrape(app, metricsToken))
  return Number(line?.[1] ?? 0)
}

export async function scaleSection(ctx: SectionContext<ScaleSettings>): Promise<void> {
  const { settings: cfg, logLine, rows, failures } = ctx
  const serverUrl = scaleDatabaseServer()
  if (!serverUrl) throw new Error("scale: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a Postgres server the bench may create a database on")
  const databaseUrl = await createBenchDatabase(serverUrl)

  const clientId = "bench-scale-client"
  const clientSecret = randomBytes(24).toString("base64url")
  const sandboxPort = await freePort(4600, 4699)
  logLine(`scale: the standalone sandbox with its rate limits on (port ${sandboxPort}), behind the counting proxy`)
  const sandbox = await startSandbox({
    port: sandboxPort,
    dataDir: tempDir("console-bench-scale-sandbox-"),
    logDir: ctx.logDir,
    clientId,
    clientSecret,
    env: { SANDBOX_RATE_LIMITS: "on", SANDBOX_SETTLE_DELAY_MS: "0" },
  })
  // The bench's own token (to read the service's records at the end), taken now: the
  // sandbox grants one token per second, and the instances will need theirs.
  const token = await sandboxToken(sandbox.origin, clientId, clientSecret, UPSTREAM_SCOPES)
  const proxy = await startCountingProxy(sandbox.origin, await freePort(4600, 4699))
  onCleanup(() => proxy.close())

  const password = randomBytes(12).toString("base64url")
  const users = JSON.stringify([{ email: "scale@example.com", role: "trader", passwordHash: bcrypt.hashSync(password, 8) }])
  const nextAuthSecret = randomBytes(32).toString("base64url")
  const metricsToken = randomBytes(24).toString("base64url")
  const apps: (ConsoleServer & { name: string })[] = []
  for (let i = 0; i < cfg.instances; i++) {
    const port = await freePort(3600, 3699)
    const name = `console-scale-${i + 1}`
    logLine(`scale: starting ${name} on ${port} (DATABASE_URL: the bench's Postgres database)`)
    const app = await startConsole({
      name,
      distDir: ctx.distDir,
      port,
      dataDir: tempDir("console-bench-scale-data-"),
      logDir: ctx.logDir,
      env: {
        DATABASE_URL: databaseUrl,
        UPSTREAM_BASE_URL: `${proxy.origin}/sandbox/v2`,
        UPSTREAM_TOKEN_URL: `${proxy.origin}/sandbox/oauth2/token`,
        UPSTREAM_CLIENT_ID: clientId,
        UPSTREAM_CLIENT_SECRET: clientSecret,
        NEXTAUTH_SECRET: nextAuthSecret,
        CONSOLE_USERS: users,
        METRICS_TOKEN: metricsToken,
      },
    })
    apps.push({ ...app, name })
  }
  // One session works on every instance: they share the signing secret, as behind a load balancer.
  const cookie = await signIn(apps[0]!.origin, "scale@example.com", password)
  const headersFor = (app: ConsoleServer) => ({ cookie, origin: app.origin })
  const profiles = profilesSchema.parse(json(expectOk(await send(apps[0]!.origin, { path: "/api/profiles", headers: headersFor(apps[0]!) }), "profiles")))
  const profileId = profiles.items.find((p) => p.nickname === PROFILE)?.id
  if (!profileId) throw new Error(`scale: the sandbox has no ${PROFILE} profile`)

  // ------------------------------------------------------------ executions burst
  const quotes = quotesSchema.parse(json(expectOk(await send(apps[0]!.origin, { path: "/api/quotes?markets=BTCUSD", headers: headersFor(apps[0]!) }), "quotes")))
  const quoteId = quotes.items.find((q) => q.side === "BUY")?.id
  if (!quoteId) throw new Error("scale: no BUY quote")
  const refPrefix = `scale-${randomUUID().slice(0, 8)}-`
  const agent = keepAliveAgent(cfg.executions)
  logLine(`scale: ${cfg.executions} executions at once, spread over ${apps.length} instances (a caller asked to wait retries with its ref_id)`)
  const burstStart = Date.now()
  let consoleRetries = 0
  const outcomes = await Promise.all(
    Array.from({ length: cfg.executions }, async (_, i) => {
      const app = apps[i % apps.length]!
      let quote = quoteId
      let ref = `${refPrefix}${i}`
      // Bounded: a few waits at most, each as long as the console's Retry-After says.
      for (let attempt = 1; attempt <= 8; attempt++) {
        const body = JSON.stringify({ quote_id: quote, base_amount: BASE_AMOUNT, ref_id: ref })
        const res = await send(
          app.origin,
          { method: "POST", path: `/api/profiles/${profileId}/quote-executions`, headers: { ...headersFor(app), "content-type": "application/json" }, body },
          agent,
        )
        if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, attempts: attempt }
        // The quote moved on while the burst queued (or its serving is not yet remembered): as a
        // trader would, take the current quote from this instance and submit anew (a new ref_id).
        if (res.status === 422 && res.body.toString("utf8").includes("quote_not_current")) {
          const fresh = quotesSchema.parse(json(expectOk(await send(app.origin, { path: "/api/quotes?markets=BTCUSD", headers: headersFor(app) }), "quotes")))
          quote = fresh.items.find((q) => q.side === "BUY")?.id ?? quote
          ref = `${refPrefix}${i}-${attempt}`
          await sleep(200)
          continue
        }
        if (res.status !== 429) return { ok: false, status: res.status, attempts: attempt, body: res.body.toString("utf8").slice(0, 200) }
        consoleRetries++
        await sleep(Number(res.headers["retry-after"] ?? "1") * 1000)
      }
      return { ok: false, status: 429, attempts: 8 }
    }),
  )
  agent.destroy()
  const burstEnd = Date.now()
  const creates = proxy.arrivals.filter((a) => a.at >= burstStart && a.at <= burstEnd && isExecutionCreate(a))
  const refusals = proxy.arrivals.filter((a) => a.at >= burstStart && a.at <= burstEnd && a.status === 429)
  const refusedByService = refusals.length
  const executionPeak = busiestSecond(creates.map((a) => a.at))
  const failed = outcomes.filter((o) => !o.ok)
  if (failed.length > 0) failures.push(`scale: ${failed.length} executions not placed (${JSON.stringify(failed[0])})`)

  // Exactly once, asked of the service itself: each ref_id names one execution.
  const placed = new Map<string, number>()
  let cursor: string | undefined
  for (let page = 0; page < 20; page++) {
    const query = new URLSearchParams({ "created_at.begin": new Date(burstStart - 60_000).toISOString(), limit: "1000", order: "ASC" })
    if (cursor) query.set("page_cursor", cursor)
    const res = expectOk(await send(sandbox.origin, { path: `/sandbox/v2/profiles/${profileId}/quote-executions?${query}`, headers: { authorization: `Bearer ${token}` } }), "list executions")
    const pageBody = executionsPageSchema.parse(json(res))
    for (const e of pageBody.items) if (e.ref_id?.startsWith(refPrefix)) placed.set(e.ref_id, (placed.get(e.ref_id) ?? 0) + 1)
    cursor = pageBody.next_page_cursor || undefined
    if (!cursor) break
  }
  const exactlyOnce = placed.size === cfg.executions && [...placed.values()].every((n) => n === 1)
  const viaLocal = (await Promise.all(apps.map((app) => localExecutions(app, metricsToken)))).reduce((a, n) => a + n, 0)
  if (viaLocal > 0) logLine(`  note: ${viaLocal} executions went through an instance's local fallback limiter (the database did not answer in time)`)
  logLine(
    `  ${creates.length} creates reached the service in ${round((burstEnd - burstStart) / 1000)} s, busiest second ${executionPeak}, ${refusedByService} refused by it; ` +
      `${cfg.executions - failed.length} placed, ${consoleRetries} console asks to wait; the service holds ${placed.size} executions for the ${cfg.executions} ref_ids (${exactlyOnce ? "each once" : "NOT each once"})`,
  )

  // ------------------------------------------------------------ quote readers over all instances
  logLine(`scale: ${cfg.readers} quote readers over ${apps.length} instances, every ${cfg.readerPeriodMs} ms for ${cfg.readSeconds} s`)
  const readersPer = (list: ConsoleServer[]) => Math.max(1, Math.floor(cfg.readers / list.length))
  const readAll = async (list: ConsoleServer[], seconds: number) =>
    Promise.all(
      list.map((app) =>
        pollers({
          origin: app.origin,
          clients: readersPer(list),
          periodMs: cfg.readerPeriodMs,
          durationMs: seconds * 1000,
          request: { path: "/api/quotes?markets=BTCUSD", headers: headersFor(app) },
        }),
      ),
    )
  const readStart = Date.now()
  const reads = await readAll(apps, cfg.readSeconds)
  const readEnd = Date.now()
  const quoteCalls = proxy.arrivals.filter((a) => a.at >= readStart && a.at <= readEnd && isQuotesCall(a)).map((a) => a.at)
  const quoteRate = quoteCalls.length > 1 ? (quoteCalls.length - 1) / (((quoteCalls.at(-1) ?? 0) - (quoteCalls[0] ?? 0)) / 1000) : quoteCalls.length
  const readErrors = reads.reduce((a, r) => a + r.errors, 0)
  const polls = reads.reduce((a, r) => a + r.requests, 0)
  if (readErrors > 0) failures.push(`scale: quote readers saw ${readErrors} errors (${reads.find((r) => r.firstError)?.firstError})`)
  logLine(`  ${polls} polls, ${readErrors} errors; quotes calls the service received: ${quoteCalls.length} (${round(quoteRate, 2)}/s, busiest second ${busiestSecond(quoteCalls)})`)

  // ------------------------------------------------------------ the poller instance stops
  const pollerFlags = await Promise.all(apps.map((app) => isPoller(app, metricsToken)))
  const pollerIndex = pollerFlags.indexOf(true)
  let handoverMs = Number.NaN
  let handoverErrors = 0
  if (pollerIndex < 0 || pollerFlags.filter(Boolean).length !== 1) {
    failures.push(`scale: expected exactly one poller, metrics say ${pollerFlags.filter(Boolean).length}`)
  } else {
    const poller = apps[pollerIndex]!
    const survivors = apps.filter((_, i) => i !== pollerIndex)
    logLine(`scale: killing the poller (${poller.name}: no clean hand-over, its lease just lapses); readers stay on the other ${survivors.length}`)
    const watched = survivors.map((app) => ({ app, agent: keepAliveAgent(1) }))
    const reading = readAll(survivors, cfg.handoverSeconds)
    await sleep(1000)
    const stoppedAt = Date.now()
    await poller.server.stop(0)
    // Bounded: until a reader sees quotes fetched after the stop, or the hand-over time ends.
    const deadline = stoppedAt + cfg.handoverSeconds * 1000 - 1500
    while (Date.now() < deadline && Number.isNaN(handoverMs)) {
      for (const { app, agent: a } of watched) {
        const res = await send(app.origin, { path: "/api/quotes?markets=BTCUSD", headers: headersFor(app) }, a)
        if (res.status !== 200) continue
        const fetchedAt = Date.parse(quotesSchema.parse(json(res)).fetched_at)
        if (fetchedAt > stoppedAt) {
          handoverMs = Date.now() - stoppedAt
          break
        }
      }
      await sleep(50)
    }
    for (const { agent: a } of watched) a.destroy()
    const after = await reading
    handoverErrors = after.reduce((a, r) => a + r.errors, 0)
    if (handoverErrors > 0) failures.push(`scale: readers on the surviving instances saw ${handoverErrors} errors (${after.find((r) => r.firstError)?.firstError})`)
    logLine(`  quotes fetched after the stop reached a reader ${Number.isNaN(handoverMs) ? "never" : `${handoverMs} ms`} after it; ${handoverErrors} reader errors meanwhile`)
  }

  ctx.results.scale = {
    instances: cfg.instances,
    executions: {
      sent: cfg.executions,
      reachedService: creates.length,
      busiestSecond: executionPeak,
      refusedByService,
      consoleRetries,
      viaLocalLimiter: viaLocal,
      placed: placed.size,
      exactlyOnce,
      seconds: (burstEnd - burstStart) / 1000,
      arrivalsMs: creates.map((a) => a.at - burstStart),
      refusals: refusals.map((a) => `${a.method} ${a.path} at ${a.at - burstStart} ms`),
    },
    quotes: { readers: cfg.readers, polls, errors: readErrors, calls: quoteCalls.length, rate: quoteRate, busiestSecond: busiestSecond(quoteCalls) },
    handover: { ms: handoverMs, errors: handoverErrors },
  }
  rows.push({
    group: GROUP,
    what: `${cfg.executions} executions at once over ${cfg.instances} instances: busiest second at the service`,
    console: `${executionPeak} /s`,
    baseline: "",
    value: `${refusedByService} refused by the service; ${creates.length} creates in ${round((burstEnd - burstStart) / 1000)} s`,
    goal: "≤ 10 /s, 0 refused",
    ok: executionPeak <= 10 && refusedByService === 0,
  })
  rows.push({
    group: GROUP,
    what: "every execution placed exactly once (the service's records by ref_id)",
    console: `${placed.size} of ${cfg.executions}`,
    baseline: "",
    value: exactlyOnce ? "each once" : `duplicates: ${[...placed.values()].filter((n) => n > 1).length}`,
    goal: `${cfg.executions}, each once`,
    ok: exactlyOnce && failed.length === 0,
  })
  rows.push({
    group: GROUP,
    what: `${cfg.readers} quote readers over ${cfg.instances} instances for ${cfg.readSeconds} s: quotes calls at the service`,
    console: `${round(quoteRate, 2)} /s`,
    baseline: `${round(polls / cfg.readSeconds, 0)} polls/s to the consoles`,
    value: `${quoteCalls.length} calls; busiest second ${busiestSecond(quoteCalls)}; ${readErrors} errors`,
    goal: "≤ 1 /s",
    ok: round(quoteRate, 2) <= 1 && readErrors === 0,
  })
  rows.push({
    group: GROUP,
    what: "the poller instance killed: quotes fetched after it reach readers",
    console: Number.isNaN(handoverMs) ? "never" : `${round(handoverMs / 1000, 2)} s`,
    baseline: "",
    value: `${handoverErrors} reader errors on the other instances`,
    goal: "≤ 3 s, 0 errors",
    ok: handoverMs <= 3000 && handoverErrors === 0,
  })
  for (const app of apps) await app.server.stop(10_000)
}
