// 11. Events: what following orchestrations costs the service, counted on its side of the
// wire. A fresh console in upstream mode (Orchestrations API) behind a counting proxy, one
// trader's tab polling /api/notifications every 2.5 s as the browser does, N orchestrations
// placed; until every one is announced as settled: the service calls that followed them
// (GET of an orchestration; GET /v2/events), with the event reader off and then on.
import { randomBytes, randomUUID } from "node:crypto"
import bcrypt from "bcryptjs"
import { type Bench, logLine } from "./context"
import { startCountingProxy } from "./counting-proxy"
import { expectOk, json, send } from "./http"
import { freePort, onCleanup, tempDir } from "./processes"
import { signIn, startConsole } from "./servers"
import { round } from "./stats"
import type { BenchClient, DirectSandbox } from "./targets"

const POLL_MS = 2500

interface Followed {
  mode: "off" | "on"
  orchestrations: number
  announced: number
  orchestrationReads: number
  eventReads: number
  perOrchestration: number
  seconds: number
}

async function follow(bench: Bench, sandbox: DirectSandbox, client: BenchClient, mode: "off" | "on", count: number): Promise<Followed> {
  const proxy = await startCountingProxy(sandbox.origin, await freePort(4600, 4699))
  onCleanup(() => proxy.close())
  const password = randomBytes(12).toString("base64url")
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
      EVENTS_POLL_MS: mode === "on" ? "5000" : "0",
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
      placed.add((json(res) as { id: string }).id)
    }
    const announced = new Set<string>()
    const deadline = Date.now() + 120_000
    while (announced.size < placed.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      const page = await poll(cursor)
      for (const e of page.events) if (placed.has(e.record_id)) announced.add(e.record_id)
      cursor = page.cursor
    }
    const t1 = Date.now()
    const orchestrationReads = proxy.count((a) => a.method === "GET" && /\/orchestration\/orchestrations\/[^/]+$/.test(a.path), t0, t1)
    const eventReads = proxy.count((a) => a.method === "GET" && /\/v2\/events$/.test(a.path), t0, t1)
    if (announced.size < placed.size) bench.failures.push(`events (${mode}): ${placed.size - announced.size} of ${placed.size} orchestrations never announced`)
    return {
      mode,
      orchestrations: placed.size,
      announced: announced.size,
      orchestrationReads,
      eventReads,
      perOrchestration: (orchestrationReads + eventReads) / Math.max(1, placed.size),
      seconds: (t1 - t0) / 1000,
    }
  } finally {
    await app.server.stop(20_000)
    await proxy.close()
  }
}

export async function measureEvents(bench: Bench, sandbox: DirectSandbox, client: BenchClient): Promise<void> {
  const count = bench.args.smoke ? 3 : 10
  logLine(`events: ${count} orchestrations followed by one notifications tab, the event reader off and then on`)
  const runs: Followed[] = []
  for (const mode of ["off", "on"] as const) {
    const run = await follow(bench, sandbox, client, mode, count)
    runs.push(run)
    logLine(
      `  reader ${mode}: ${run.announced}/${run.orchestrations} announced in ${round(run.seconds)} s; the service received ${run.orchestrationReads} orchestration reads and ${run.eventReads} event reads (${round(run.perOrchestration, 2)} per orchestration)`,
    )
  }
  bench.results.events = runs
  const [off, on] = runs as [Followed, Followed]
  bench.rows.push({
    group: "11. events: following orchestrations",
    what: `service calls per settled orchestration (${count} placed, one tab polling notifications): reader on (baseline: off)`,
    console: `${round(on.perOrchestration, 2)}`,
    baseline: `${round(off.perOrchestration, 2)}`,
    value: `${on.orchestrationReads} orchestration reads, ${on.eventReads} event reads in ${round(on.seconds)} s`,
    goal: "fewer with the reader on",
    ok: on.perOrchestration < off.perOrchestration && on.announced === on.orchestrations,
  })
}
