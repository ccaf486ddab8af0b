"use client"

import { useQuery } from "@tanstack/react-query"
import { z } from "zod"
import { apiFetch } from "@/lib/queries/api"
import { sandboxKeys } from "@/lib/queries/keys"
import type { SandboxFaultsStatus } from "@/lib/schemas/sandbox-tools"

// Kept apart from lib/queries/sandbox.ts: the banner is on every page, so it loads only this.
export const sandboxStatusKey = () => [...sandboxKeys.all, "status"] as const

const sandboxFaultsStatusSchema = z.object({
  faults_active: z.boolean(),
  active_rules: z.number().int(),
  operations: z.array(z.string()),
})

/**
 * Whether faults are active, for the banner. `live` (admins) keeps it fresh: every
 * 15 s, and at once after any change made through the sandbox tools.
 */
export function useSandboxStatusQuery(initial: SandboxFaultsStatus | null, live: boolean) {
  return useQuery({
    queryKey: sandboxStatusKey(),
    queryFn: ({ signal }): Promise<SandboxFaultsStatus> => apiFetch("/api/sandbox/status", { signal, schema: sandboxFaultsStatusSchema }),
    ...(initial ? { initialData: initial } : {}),
    enabled: live,
    refetchInterval: live ? 15_000 : false,
    retry: false,
  })
}
