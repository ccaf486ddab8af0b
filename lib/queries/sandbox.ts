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

import { type HistoryAnswer, type HistoryRequest, historyAnswerSchema } from "@/lib/schemas/sandbox-history"
import { type SilentMovement, type SilentMovementAnswer, silentMovementAnswerSchema } from "@/lib/schemas/silent-movement"
import { type LostRecord, type LostRecordAnswer, lostRecordAnswerSchema } from "@/lib/schemas/lost-record"

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

/** "Generate a past week" (POST /api/sandbox/history): once per sandbox; a second run is refused with 409 history_exists. */
export function useSandboxHistoryMutation(options?: MutationOptions<HistoryAnswer, HistoryRequest>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: (body: HistoryRequest) => apiFetch("/api/sandbox/history", { method: "POST", body, schema: historyAnswerSchema }),
    onSuccess: (answer, ...rest) => {
      void queryClient.invalidateQueries()
      return options?.onSuccess?.(answer, ...rest)
    },
  })
}

/** The fault "move a balance without a record" (POST /api/sandbox/silent-movement). */
export function useSilentMovementMutation(options?: MutationOptions<SilentMovementAnswer, SilentMovement>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: (body: SilentMovement) => apiFetch("/api/sandbox/silent-movement", { method: "POST", body, schema: silentMovementAnswerSchema }),
    onSuccess: (answer, ...rest) => {
      void queryClient.invalidateQueries({ queryKey: profileKeys.balances(answer.profile_id) })
      return options?.onSuccess?.(answer, ...rest)
    },
  })
}

/** The fault "lose a record" (POST /api/sandbox/lost-record). */
export function useLostRecordMutation(options?: MutationOptions<LostRecordAnswer, LostRecord>) {
  return useMutation({
    ...options,
    mutationFn: (body: LostRecord) => apiFetch("/api/sandbox/lost-record", { method: "POST", body, schema: lostRecordAnswerSchema }),
  })
}
