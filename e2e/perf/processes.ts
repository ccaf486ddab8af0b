// Child processes of the benchmark: each server runs in its own process group, so it can
// be stopped with everything it started (by that group's id, never by name), and every
// process and temporary folder is removed on exit, also after a failure or Ctrl-C.
import { type ChildProcess, spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import { sleep } from "./stats"

const cleanups: (() => Promise<void> | void)[] = []

/** Registers work to do when the benchmark ends (run last-in, first-out). */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn)
}

export async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()
    try {
      await fn?.()
    } catch (error) {
      process.stderr.write(`cleanup: ${error instanceof Error ? error.message : String(error)}\n`)
    }
  }
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  onCleanup(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The first port in [from, to] nobody listens on (127.0.0.1). */
export async function freePort(from: number, to: number, taken: Set<number> = usedPorts): Promise<number> {
  for (let port = from; port <= to; port++) {
    if (taken.has(port)) continue
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer()
      server.once("error", () => resolve(false))
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
    })
    if (free) {
      taken.add(port)
      return port
    }
  }
  throw new Error(`no free port between ${from} and ${to}`)
}
const usedPorts = new Set<number>()

export interface Server {
  name: string
  pid: number
  logFile: string
  exited: boolean
  /** The exit code once exited (null: ended by a signal, or still running). */
  exitCode: number | null
  /** Stops the process group: SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>
  /** SIGKILL to the process group at once: the process dies where it stands (no shutdown hooks). */
  kill(): Promise<void>
  logTail(lines?: number): string
}

export function startProcess(options: {
  name: string
  command: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
  logDir: string
}): Server {
  const logFile = path.join(options.logDir, `${options.name}.log`)
  const log = createWriteStream(logFile)
  const child: ChildProcess = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  })
  child.stdout?.pipe(log, { end: false })
  child.stderr?.pipe(log, { end: false })
  const pid = child.pid
  if (pid === undefined) throw new Error(`${options.name}: could not start ${options.command}`)
  const exit = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      server.exitCode = code
      resolve()
    }),
  )
  const server: Server = {
    name: options.name,
    pid,
    logFile,
    exited: false,
    exitCode: null,
    async stop(graceMs = 10_000) {
      if (server.exited) return
      signalGroup(pid, "SIGTERM")
      const done = await Promise.race([exit.then(() => true), sleep(graceMs).then(() => false)])
      if (!done) signalGroup(pid, "SIGKILL")
      await Promise.race([exit, sleep(2000)])
      // Anything the server started and left behind in its group (the group id stays
      // reserved while any member lives, so this cannot reach another process).
      if (groupMembers(pid).length > 0) signalGroup(pid, "SIGKILL")
      log.end()
    },
    async kill() {
      if (server.exited) return
      signalGroup(pid, "SIGKILL")
      await Promise.race([exit, sleep(5000)])
      log.end()
    },
    logTail(lines = 30) {
      try {
        return readFileSync(logFile, "utf8").split("\n").slice(-lines).join("\n")
      } catch {
        return ""
      }
    },
  }
  void exit.then(() => {
    server.exited = true
  })
  onCleanup(() => server.stop(5000))
  return server
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // Already gone.
  }
}

/** Waits until `url` answers 2xx; fails early when the server exits. */
export async function waitForHttp(url: string, server: Server, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let lastError = ""
  while (Date.now() < deadline) {
    if (server.exited) throw new Error(`${server.name} exited while starting:\n${server.logTail()}`)
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) })
      if (res.ok) return
      lastError = `HTTP ${res.status}`
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error)
    }
    // Often enough that start-up times are measured to a tenth of a second.
    await sleep(50)
  }
  throw new Error(`${server.name} did not answer ${url} within ${timeoutMs} ms (${lastError}):\n${server.logTail()}`)
}

// ---------------------------------------------------------------- memory

function readStatus(pid: number): Map<string, string> {
  const fields = new Map<string, string>()
  for (const line of readFileSync(`/proc/${pid}/status`, "utf8").split("\n")) {
    const colon = line.indexOf(":")
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim())
  }
  return fields
}

function kib(value: string | undefined): number {
  return Number.parseInt(value ?? "0", 10) || 0
}

/** Process ids in process group `pgid` (Linux /proc). */
export function groupMembers(pgid: number): number[] {
  const members: number[] = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      // Fields after the command (which may hold spaces) start after the last ')'.
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(rest[2]) === pgid) members.push(Number(entry))
    } catch {
      // Gone between readdir and read.
    }
  }
  return members
}

/** Resident memory of a process group, in MiB: now (sum) and each member's own peak (VmHWM). */
export function groupMemory(pgid: number): { rssMiB: number; peakMiB: number; processes: { pid: number; name: string; rssMiB: number; peakMiB: number }[] } {
  const processes: { pid: number; name: string; rssMiB: number; peakMiB: number }[] = []
  for (const pid of groupMembers(pgid)) {
    try {
      const s = readStatus(pid)
      processes.push({ pid, name: s.get("Name") ?? "?", rssMiB: kib(s.get("VmRSS")) / 1024, peakMiB: kib(s.get("VmHWM")) / 1024 })
    } catch {
      // Gone.
    }
  }
  return {
    rssMiB: processes.reduce((a, p) => a + p.rssMiB, 0),
    peakMiB: processes.reduce((a, p) => a + p.peakMiB, 0),
    processes,
  }
}

/** CPU time (user and system) the members of a process group have used so far, in ms: unlike wall time, it hardly moves with the machine's load. */
export function groupCpuMs(pgid: number): number {
  const tick = 10 // USER_HZ is 100 on Linux
  let total = 0
  for (const pid of groupMembers(pgid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      // utime, stime, and what waited-for children used (cutime, cstime).
      total += [11, 12, 13, 14].reduce((a, i) => a + Number(rest[i] ?? 0), 0) * tick
    } catch {
      // Gone.
    }
  }
  return total
}

/** Samples a process group's RSS every `everyMs` until stopped; returns the highest sum seen. */
export function sampleMemory(pgid: number, everyMs = 100): { stop(): { peakMiB: number; samples: number } } {
  let peak = 0
  let samples = 0
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, groupMemory(pgid).rssMiB)
      samples++
    } catch {
      // The process may be gone.
    }
  }, everyMs)
  return {
    stop() {
      clearInterval(timer)
      return { peakMiB: peak, samples }
    },
  }
}

// ---------------------------------------------------------------- machine

export function loadAverage(): [number, number, number] {
  const [a = "0", b = "0", c = "0"] = readFileSync("/proc/loadavg", "utf8").split(" ")
  return [Number(a), Number(b), Number(c)]
}

/** Runs a command to completion with inherited output (builds). */
export function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; logFile?: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", options.logFile ? "pipe" : "inherit", options.logFile ? "pipe" : "inherit"],
    })
    if (options.logFile) {
      const log = createWriteStream(options.logFile)
      child.stdout?.pipe(log, { end: false })
      child.stderr?.pipe(log, { end: false })
      child.once("exit", () => log.end())
    }
    const pid = child.pid
    let exited = false
    onCleanup(() => {
      // Only while it runs: once it has exited, its id may belong to someone else.
      if (!exited && pid !== undefined) signalGroup(pid, "SIGKILL")
    })
    child.once("error", reject)
    child.once("exit", (code, signal) => {
      exited = true
      if (code === 0) resolve()
      else reject(new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`})`))
    })
  })
}
