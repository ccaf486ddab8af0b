// 13. Statements (npm run bench -- --only statements): a 31-day statement over 10,000
// movements. A fresh console in sandbox mode; an admin generates the sandbox's past
// (POST /api/sandbox/history: 31 days of 1200 records a day, about a third of them moving
// the Treasury's balances, so its statement holds 10,000 and more movements (9,494 with
// 1000 a day), with a
// balance snapshot at every cutoff), then the Treasury's statement of those 31 days is asked for
// (GET /api/statements, JSON) round after round: its median and p99. Then its CSV
// (GET /api/statements/export?format=csv) is downloaded while the server's process group's
// RSS is sampled every 20 ms: the growth over the RSS just before, the highest of the
// rounds. A smoke run: 3 days of 20 records, 2 rounds.
import { z } from "zod"
import { type Bench, logLine } from "./context"
import { expectOk, json, send } from "./http"
import { ADMIN } from "./options"
import { groupCpuMs, groupMemory, sampleMemory } from "./processes"
import { signIn } from "./servers"
import { max, median, percentile, round, sleep } from "./stats"
import { type BenchClient, startConsoleUnderTest } from "./targets"

const GROUP = "13. statements: a 31-day statement over 10,000 movements"
const DAY_MS = 86_400_000
const GOAL_MS = 2000
const GOAL_CSV_MIB = 50

const historySchema = z.object({ counts: z.object({ executions: z.number(), conversions: z.number(), orchestrations: z.number(), deposits: z.number() }) })
const statementSchema = z.object({ tie_out: z.string(), movements: z.array(z.unknown()) })

export async function measureStatements(bench: Bench, client: BenchClient): Promise<void> {
  const smoke = bench.args.smoke
  const days = smoke ? 3 : 31
  const perDay = smoke ? 20 : 1200
  const rounds = smoke ? 2 : bench.args.rounds || 10
  const app = await startConsoleUnderTest(bench, client, { name: "console-statements", quiet: true })
  try {
    const admin = await signIn(app.origin, ADMIN.email, ADMIN.password)
    const headers = { cookie: admin, origin: app.origin }
    logLine(`statements: generating ${days} days of ${perDay} records at the sandbox (POST /api/sandbox/history)`)
    const t0 = performance.now()
    const generated = historySchema.parse(
      json(
        expectOk(
          await send(app.origin, {
            method: "POST",
            path: "/api/sandbox/history",
            headers: { ...headers, "content-type": "application/json" },
            body: JSON.stringify({ seed: 1, days, per_day: perDay }),
            timeoutMs: 600_000,
          }),
          "POST /api/sandbox/history",
        ),
      ),
    )
    const generateS = (performance.now() - t0) / 1000
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
    const from = new Date(today - days * DAY_MS).toISOString().slice(0, 10)
    const to = new Date(today - DAY_MS).toISOString().slice(0, 10)
    const query = `profile_id=${app.profile}&from=${from}&to=${to}`

    const times: number[] = []
    // The server's CPU per statement: what a busy machine bends least (wall time there is
    // mostly waiting for a core; on a quiet one it is about this, the service being in process).
    const cpuBefore = groupCpuMs(app.server.pid)
    let movements = 0
    let tieOut = ""
    for (let i = 0; i < rounds; i++) {
      const t = performance.now()
      const res = expectOk(await send(app.origin, { path: `/api/statements?${query}`, headers, timeoutMs: 120_000 }), "GET /api/statements")
      times.push(performance.now() - t)
      const s = statementSchema.parse(json(res))
      movements = s.movements.length
      tieOut = s.tie_out
    }
    const cpuMsPerStatement = (groupCpuMs(app.server.pid) - cpuBefore) / rounds
    logLine(
      `  ${movements} movements (${tieOut}); GET /api/statements median ${round(median(times))} ms, p99 ${round(percentile(times, 99))} ms over ${rounds}; ` +
        `server CPU ${round(cpuMsPerStatement)} ms per statement; generated in ${round(generateS, 1)} s`,
    )

    const growth: number[] = []
    const csvMs: number[] = []
    let csvBytes = 0
    for (let i = 0; i < (smoke ? 1 : 3); i++) {
      await sleep(500)
      const before = groupMemory(app.server.pid).rssMiB
      const memory = sampleMemory(app.server.pid, 20)
      const t = performance.now()
      const res = expectOk(await send(app.origin, { path: `/api/statements/export?${query}&format=csv`, headers, timeoutMs: 120_000 }), "GET /api/statements/export?format=csv")
      csvMs.push(performance.now() - t)
      const peak = Math.max(memory.stop().peakMiB, groupMemory(app.server.pid).rssMiB)
      growth.push(peak - before)
      csvBytes = res.body.length
    }
    logLine(`  CSV ${round(csvBytes / 2 ** 20, 1)} MiB in ${csvMs.map((ms) => round(ms)).join(", ")} ms; RSS growth ${growth.map((g) => round(g, 1)).join(", ")} MiB`)

    bench.results.statements = { days, perDay, generated: generated.counts, generateS, movements, tieOut, times, cpuMsPerStatement, csvMs, csvBytes, growth }
    const enough = smoke || movements >= 10_000
    bench.rows.push({
      group: GROUP,
      what: `GET /api/statements, the Treasury over ${days} days, ${movements} movements: median of ${rounds}`,
      console: `${round(median(times))} ms`,
      baseline: "",
      value: `p99 ${round(percentile(times, 99))} ms, slowest ${round(max(times))} ms; server CPU ${round(cpuMsPerStatement)} ms per statement; tie-out ${tieOut}; the ${days} days generated in ${round(generateS, 1)} s`,
      goal: `≤ ${GOAL_MS / 1000} s`,
      ok: enough && percentile(times, 99) <= GOAL_MS && tieOut === "ties_out",
    })
    bench.rows.push({
      group: GROUP,
      what: `its CSV (GET /api/statements/export?format=csv, ${round(csvBytes / 2 ** 20, 1)} MiB): the server's RSS growth while streaming it, highest of ${growth.length}`,
      console: `${round(max(growth), 1)} MiB`,
      baseline: "",
      value: `downloaded in ${csvMs.map((ms) => `${round(ms)} ms`).join(", ")}`,
      goal: `≤ ${GOAL_CSV_MIB} MiB`,
      ok: enough && max(growth) <= GOAL_CSV_MIB,
    })
    if (!enough) bench.failures.push(`statements: only ${movements} movements in the statement (10,000 wanted)`)
  } finally {
    await app.server.stop(15_000)
  }
}
