// The shutdown section (npm run bench -- --only shutdown): two production console instances
// on one Postgres, the standalone sandbox as the service. A burst of conversion creates goes
// to the instance that polls quotes, which gets SIGTERM in the middle of it; a create it
// refuses (503 shutting_down) or cannot answer (connection closed) is sent again with the
// same ref_id to the other instance, as a load balancer's client would. Counted:
//   lost: ref_ids the service holds no conversion for, or more than one;
//   unknown: creates with no final answer, and intents left PENDING or UNKNOWN;
//   the other instance holds the quotes lease within 1 s of the signal (read in the database);
//   the stopped instance exits 0.
// Everything listens on 127.0.0.1 and every loop is bounded by a count or a deadline.
import { randomUUID } from "node:crypto"
import { conversionCreate, conversionsPerRef, startFleet } from "./fleet"
import { json, keepAliveAgent, send } from "./http"
import { pollers } from "./load"
import type { SectionContext } from "./report"
import type { ConsoleServer } from "./servers"
import { round, sleep } from "./stats"

export interface ShutdownSettings {
  creates: number
  /** Callers sending creates side by side. */
  concurrency: number
  /** The signal goes out once this many creates have been answered. */
  signalAfter: number
}

export const SHUTDOWN_FULL: ShutdownSettings = { creates: 50, concurrency: 10, signalAfter: 15 }
export const SHUTDOWN_SMOKE: ShutdownSettings = { creates: 20, concurrency: 5, signalAfter: 6 }

const GROUP = "10. graceful shutdown: SIGTERM during a burst of creates, two instances on one Postgres"

type Outcome = { ref: string; status: number; code: string | null; attempts: number; movedToOther: boolean }

export async function shutdownSection(ctx: SectionContext<ShutdownSettings>): Promise<void> {
  const { settings: cfg, logLine, rows, failures } = ctx
  const fleet = await startFleet({ label: "shutdown", instances: 2, distDir: ctx.distDir, logDir: ctx.logDir, logLine })
  const { apps, db, headersFor } = fleet
  const holder = async (): Promise<string | null> => {
    const { rows: feed } = await db.query<{ holder: string | null; live: boolean }>(
      "select holder, lease_until > floor(extract(epoch from clock_timestamp()) * 1000) as live from console_quote_feed where id = 1",
    )
    return feed[0]?.live ? (feed[0].holder ?? null) : null
  }

  // Readers on both instances keep the quotes feed wanted, so both tick and either can poll.
  const readers = apps.map((app) =>
    pollers({ origin: app.origin, clients: 2, periodMs: 250, durationMs: 20_000, request: { path: "/api/quotes?markets=BTCUSD", headers: headersFor(app) } }),
  )
  let pollerId: string | null = null
  for (let i = 0; i < 100 && !pollerId; i++) {
    pollerId = await holder()
    if (!pollerId) await sleep(100)
  }
  if (!pollerId) throw new Error("shutdown: no instance took the quotes lease")
  const { rows: instances } = await db.query<{ id: string }>("select id from console_instances")
  if (instances.length !== 2) failures.push(`shutdown: expected 2 live instances, found ${instances.length}`)
  const victimIndex = pollerIndex(apps, pollerId)
  const victim = apps[victimIndex]!
  const other = apps[1 - victimIndex]!
  logLine(`shutdown: ${victim.name} polls quotes; ${cfg.creates} conversion creates to it from ${cfg.concurrency} callers, SIGTERM after ${cfg.signalAfter} answers`)

  const agent = keepAliveAgent(cfg.creates)
  const otherAgent = keepAliveAgent(cfg.creates)
  const refPrefix = `shutdown-${randomUUID().slice(0, 8)}-`
  let answered = 0
  let signalledAt = 0
  let takeover: Promise<number> = Promise.resolve(Number.NaN)
  let signal: (() => void) | null = () => {
    signalledAt = Date.now()
    process.kill(victim.server.pid, "SIGTERM")
    // The other instance takes the lease over: read in the database, from the signal on.
    takeover = (async () => {
      while (Date.now() - signalledAt < 10_000) {
        const now = await holder()
        if (now && now !== pollerId) return Date.now() - signalledAt
        await sleep(20)
      }
      return Number.NaN
    })()
  }
  const createOn = (app: ConsoleServer, ref: string, a: typeof agent) => send(app.origin, conversionCreate(fleet, app, ref), a)
  const burstStart = Date.now()
  // A stream, not one volley: `concurrency` callers each send their next create when the
  // last is answered, so creates keep arriving after the signal.
  let next = 0
  const outcomes: Outcome[] = []
  const one = async (i: number): Promise<Outcome> => {
    const ref = `${refPrefix}${i}`
    let target: ConsoleServer = victim
    let moved = false
    // Bounded: a refusal or a closed connection moves the create to the other instance.
    for (let attempt = 1; attempt <= 6; attempt++) {
      let status = 0
      let code: string | null = null
      let retryAfter = 1
      try {
        const res = await createOn(target, ref, target === victim ? agent : otherAgent)
        status = res.status
        code = (json(res) as { code?: string }).code ?? null
        retryAfter = Number(res.headers["retry-after"] ?? "1")
      } catch {
        status = 0
      }
      answered++
      if (answered >= cfg.signalAfter && signal) {
        signal()
        signal = null
      }
      if (status >= 200 && status < 300) return { ref, status, code, attempts: attempt, movedToOther: moved }
      // Certain refusals end it; shutting_down, in_flight, rate_limited and a closed connection are tried again.
      if (status !== 0 && status !== 503 && status !== 409 && status !== 429) return { ref, status, code, attempts: attempt, movedToOther: moved }
      if (target === victim && (status === 0 || code === "shutting_down")) {
        target = other
        moved = true
      } else await sleep(Math.min(2000, retryAfter * 1000))
    }
    return { ref, status: -1, code: "gave up", attempts: 6, movedToOther: moved }
  }
  await Promise.all(
    Array.from({ length: cfg.concurrency }, async () => {
      while (next < cfg.creates) outcomes.push(await one(next++))
    }),
  )
  const burstEnd = Date.now()
  agent.destroy()
  otherAgent.destroy()

  const takeoverMs = await takeover
  for (let i = 0; i < 150 && !victim.server.exited; i++) await sleep(100)
  const exitCode = victim.server.exitCode
  await Promise.all(readers)

  // Counted at the service: each ref_id names exactly one conversion.
  const perRef = await conversionsPerRef(fleet, outcomes.map((o) => o.ref))
  const lost = [...perRef.values()].filter((n) => n !== 1).length
  const { rows: unresolved } = await db.query<{ n: string }>("select count(*) as n from console_intents where ref_id like $1 and state in ('PENDING', 'UNKNOWN')", [
    `${refPrefix}%`,
  ])
  const unanswered = outcomes.filter((o) => o.status < 200 || o.status >= 300).length
  const unknown = unanswered + Number(unresolved[0]?.n ?? 0)
  const moved = outcomes.filter((o) => o.movedToOther).length
  const placedOnVictim = outcomes.filter((o) => !o.movedToOther && o.status >= 200 && o.status < 300).length
  logLine(
    `  ${cfg.creates} creates in ${round((burstEnd - burstStart) / 1000, 1)} s: ${placedOnVictim} finished by the stopping instance, ${moved} sent again to the other; ` +
      `lost ${lost}, unknown ${unknown}; lease taken over ${Number.isNaN(takeoverMs) ? "never" : `${takeoverMs} ms`} after SIGTERM; exit code ${exitCode ?? "none"}`,
  )
  if (unanswered > 0) failures.push(`shutdown: ${unanswered} creates without a final answer (${JSON.stringify(outcomes.find((o) => o.status < 200 || o.status >= 300))})`)
  ctx.results.shutdown = { creates: cfg.creates, placedOnVictim, moved, lost, unknown, takeoverMs, exitCode, seconds: (burstEnd - burstStart) / 1000 }
  rows.push({
    group: GROUP,
    what: `${cfg.creates} creates, SIGTERM after ${cfg.signalAfter} answers: lost / left unknown (each ref_id once at the service)`,
    console: `${lost} / ${unknown}`,
    baseline: "",
    value: `${placedOnVictim} finished by the stopping instance, ${moved} sent again elsewhere`,
    goal: "0 / 0",
    ok: lost === 0 && unknown === 0,
  })
  rows.push({
    group: GROUP,
    what: "the other instance holds the quotes lease, from SIGTERM",
    console: Number.isNaN(takeoverMs) ? "never" : `${round(takeoverMs / 1000, 2)} s`,
    baseline: "",
    value: `exit code ${exitCode ?? "none"}`,
    goal: "≤ 1 s, exit 0",
    ok: takeoverMs <= 1000 && exitCode === 0,
  })
  await fleet.stop()
}

/** The instance holding the quotes lease: each logs "quotes.poller_started" with its id when it takes it. */
function pollerIndex(apps: ConsoleServer[], pollerId: string): number {
  const index = apps.findIndex((app) => app.server.logTail(400).includes(pollerId))
  if (index < 0) throw new Error(`shutdown: no instance's log names the poller ${pollerId}`)
  return index
}
