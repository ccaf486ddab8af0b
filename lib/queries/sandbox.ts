"use client"

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { z } from "zod"
import { apiFetch } from "@/lib/queries/api"
import { profileKeys, sandboxKeys } from "@/lib/queries/keys"
import { type MutationOptions, type QueryOptions, gated } from "@/lib/queries/options"
import type { FaultSettingsUpdate } from "@/lib/sandbox/schemas"
import { sandboxStatusKey } from "@/lib/queries/sandbox-status"
import type { SandboxDepositRequest } from "@/lib/schemas/sandbox-tools"

const faultRuleAnswerSchema = z.object({
  operation: z.string(),
  fault: z.string(),
  rate: z.number(),
  latency_ms: z.number().optional(),
  status: z.union([z.number(), z.literal("drop")]).optional(),
})

/** GET/PUT /api/sandbox/settings: the sandbox's runtime settings. */
export const sandboxSettingsSchema = z.object({
  seed: z.number().optional(),
  settle_delay_ms: z.number().optional(),
  /** Present when the sandbox can change the quote hold time at runtime. */
  quote_ttl_ms: z.number().optional(),
  rate_limits: z.boolean().optional(),
  rules: z.array(faultRuleAnswerSchema),
})
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>

export const sandboxDepositAnswerSchema = z.object({
  activity_id: z.string().nullable(),
  profile_id: z.string(),
  asset: z.string(),
  amount: z.string(),
})

export function useSandboxSettingsQuery(options?: QueryOptions<SandboxSettings>) {
  return useQuery({
    ...options,
    enabled: gated(true, options?.enabled),
    queryKey: sandboxKeys.faults(),
    queryFn: ({ signal }) => apiFetch("/api/sandbox/settings", { signal, schema: sandboxSettingsSchema }),
  })
}

/** Changes settings and faults; the settings form, the faults list and the banner follow. */
export function useUpdateSandboxSettingsMutation(options?: MutationOptions<SandboxSettings, FaultSettingsUpdate>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: (patch: FaultSettingsUpdate) =>
      apiFetch("/api/sandbox/settings", { method: "PUT", body: patch, schema: sandboxSettingsSchema }),
    onSuccess: (settings, ...rest) => {
      queryClient.setQueryData(sandboxKeys.faults(), settings)
      void queryClient.invalidateQueries({ queryKey: sandboxStatusKey() })
      return options?.onSuccess?.(settings, ...rest)
    },
  })
}

export function useSandboxDepositMutation(options?: MutationOptions<z.infer<typeof sandboxDepositAnswerSchema>, SandboxDepositRequest>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: (body: SandboxDepositRequest) =>
      apiFetch("/api/sandbox/deposit", { method: "POST", body, schema: sandboxDepositAnswerSchema }),
    onSuccess: (deposit, ...rest) => {
      void queryClient.invalidateQueries({ queryKey: profileKeys.balances(deposit.profile_id) })
      return options?.onSuccess?.(deposit, ...rest)
    },
  })
}
