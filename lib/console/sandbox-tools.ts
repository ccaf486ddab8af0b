import "server-only"
import { notFound } from "@/lib/problem"
import { consoleRuntime } from "@/lib/console/runtime"
import { env } from "@/lib/env"
import { withinOrNull } from "@/lib/within"
import { type SandboxFaultsStatus, type SandboxSettings, faultsStatusOf } from "@/lib/schemas/sandbox-tools"

/** The sandbox tools exist in sandbox mode only; against the real service they are a 404. */
export function requireSandboxMode(): void {
  if (env().mode !== "sandbox") {
    throw notFound("The sandbox tools exist in sandbox mode only.")
  }
}

/** How long the banner may show a fault status before asking the sandbox again. */
const STATUS_TTL_MS = 5_000

const cache = globalThis as unknown as {
  __sandboxFaultsStatus?: { at: number; value: SandboxFaultsStatus }
  __sandboxFaultsStatusInFlight?: Promise<SandboxFaultsStatus>
}

/** Keeps what a GET or PUT of the settings just said, so the banner never lags a change made here. */
export function rememberFaults(settings: SandboxSettings): SandboxFaultsStatus {
  const value = faultsStatusOf(settings)
  cache.__sandboxFaultsStatus = { at: performance.now(), value }
  return value
}

/** The fault status, from a cache at most 5 s old; concurrent callers share one call. */
export async function sandboxFaultsStatus(): Promise<SandboxFaultsStatus> {
  const cached = cache.__sandboxFaultsStatus
  if (cached && performance.now() - cached.at < STATUS_TTL_MS) return cached.value
  cache.__sandboxFaultsStatusInFlight ??= (async () => {
    const { upstream } = await consoleRuntime()
    return rememberFaults(await upstream.getFaults())
  })().finally(() => {
    cache.__sandboxFaultsStatusInFlight = undefined
  })
  return cache.__sandboxFaultsStatusInFlight
}

/**
 * For the console's banner: the fault status in sandbox mode, or null (upstream mode, or
 * the sandbox did not answer within `timeoutMs`). Never throws, never holds a page up long.
 */
export async function bannerFaultsStatus(timeoutMs = 1_000): Promise<SandboxFaultsStatus | null> {
  if (env().mode !== "sandbox") return null
  return withinOrNull(sandboxFaultsStatus, timeoutMs, "sandbox.faults_status_failed")
}

/**
 * For the /sandbox page's first render: the sandbox's settings and faults, so the forms
 * are there at once instead of arriving (and pushing the page about) after a fetch. Null
 * when the sandbox did not answer within `timeoutMs`: the page then fetches them itself.
 */
export async function pageSandboxSettings(timeoutMs = 1_000): Promise<SandboxSettings | null> {
  if (env().mode !== "sandbox") return null
  // Not remembered for the banner: an answer that comes after the timeout could overwrite
  // a change made since.
  return withinOrNull(
    async () => {
      const { upstream } = await consoleRuntime()
      return upstream.getFaults()
    },
    timeoutMs,
    "sandbox.settings_failed",
  )
}
