"use client"

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch } from "@/lib/queries/api"
import { profileKeys, sandboxKeys } from "@/lib/queries/keys"
import { sandboxStatusKey } from "@/lib/queries/sandbox-status"
import {
  type FaultSettingsUpdate,
  type SandboxDepositRequest,
  type SandboxSettings,
  sandboxDepositAnswerSchema,
  sandboxSettingsSchema,
} from "@/lib/schemas/sandbox-tools"

export type { SandboxSettings }

export function useSandboxSettingsQuery() {
  return useQuery({
    queryKey: sandboxKeys.faults(),
    queryFn: ({ signal }) => apiFetch("/api/sandbox/settings", { signal, schema: sandboxSettingsSchema }),
  })
}

/** Changes settings and faults; the settings form, the faults list and the banner follow. */
export function useUpdateSandboxSettingsMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (patch: FaultSettingsUpdate) =>
      apiFetch("/api/sandbox/settings", { method: "PUT", body: patch, schema: sandboxSettingsSchema }),
    onSuccess: (settings) => {
      queryClient.setQueryData(sandboxKeys.faults(), settings)
      void queryClient.invalidateQueries({ queryKey: sandboxStatusKey() })
    },
  })
}

export function useSandboxDepositMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: SandboxDepositRequest) =>
      apiFetch("/api/sandbox/deposit", { method: "POST", body, schema: sandboxDepositAnswerSchema }),
    onSuccess: (deposit) => {
      void queryClient.invalidateQueries({ queryKey: profileKeys.balances(deposit.profile_id) })
    },
  })
}
