"use client"

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch } from "@/lib/queries/api"
import { profileKeys, sandboxKeys } from "@/lib/queries/keys"
import { type MutationOptions, type QueryOptions, gated } from "@/lib/queries/options"
import { sandboxStatusKey } from "@/lib/queries/sandbox-status"
import type { ConversionsApi } from "@/lib/schemas/constants"
import {
  type ConversionsApiState,
  type FaultSettingsUpdate,
  type SandboxDepositAnswer,
  type SandboxDepositRequest,
  type SandboxSettings,
  conversionsApiStateSchema,
  sandboxDepositAnswerSchema,
  sandboxSettingsSchema,
} from "@/lib/schemas/sandbox-tools"

export type { SandboxSettings }

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

export function useSandboxDepositMutation(options?: MutationOptions<SandboxDepositAnswer, SandboxDepositRequest>) {
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

/** Switches the desk's conversion API (sandbox mode, for demos). */
export function useSwitchConversionsApiMutation(options?: MutationOptions<ConversionsApiState, ConversionsApi>) {
  return useMutation({
    ...options,
    mutationFn: (api: ConversionsApi) =>
      apiFetch("/api/sandbox/conversions-api", { method: "PUT", body: { api }, schema: conversionsApiStateSchema }),
  })
}
