"use client"

import { useQuery } from "@tanstack/react-query"
import { sandboxKeys } from "@/lib/queries/keys"
import type { QueryOptions } from "@/lib/queries/options"
import { useStreamedInterval } from "@/lib/queries/stream"
import type { SandboxFaultsStatus } from "@/lib/schemas/sandbox-tools"

// Kept apart from lib/queries/sandbox.ts and free of zod and apiFetch: the banner is on
// every page, so this is all it adds to each page's JavaScript.
export const sandboxStatusKey = sandboxKeys.status

/** How often every open console page asks whether faults are on. */
export const SANDBOX_STATUS_INTERVAL_MS = 15_000

function isFaultsStatus(value: unknown): value is SandboxFaultsStatus {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  return (
    typeof v.faults_active === "boolean" &&
    typeof v.active_rules === "number" &&
    Array.isArray(v.operations) &&
    v.operations.every((op) => typeof op === "string")
  )
}

async function fetchFaultsStatus(signal: AbortSignal): Promise<SandboxFaultsStatus> {
  const res = await fetch("/api/sandbox/status", { signal, credentials: "same-origin", cache: "no-store", headers: { accept: "application/json" } })
  if (!res.ok) throw new Error(`the fault status answered ${res.status}`)
  const body: unknown = await res.json()
  if (!isFaultsStatus(body)) throw new Error("the fault status answer was not understood")
  return body
}

/**
 * Whether faults are active, for the banner, kept fresh for every role: every 15 s, when
 * the window regains focus, and at once after a change made through the sandbox tools.
 * The people trading into the faults are the ones who most need to see them. A failed
 * check keeps showing the last known state.
 */
export function useSandboxStatusQuery(options?: QueryOptions<SandboxFaultsStatus>) {
  // Pushed on the tab's stream while it is live; polled otherwise.
  const interval = useStreamedInterval(SANDBOX_STATUS_INTERVAL_MS)
  return useQuery({
    refetchInterval: interval,
    retry: false,
    ...options,
    queryKey: sandboxStatusKey(),
    queryFn: ({ signal }) => fetchFaultsStatus(signal),
  })
}
