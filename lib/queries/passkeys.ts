"use client"

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch } from "@/lib/queries/api"
import { passkeyKeys } from "@/lib/queries/keys"

export interface Passkey {
  id: string
  name: string
  created_at: string
  last_used_at: string | null
  transports: string[]
}

export function usePasskeysQuery() {
  return useQuery({
    queryKey: passkeyKeys.all,
    queryFn: ({ signal }) => apiFetch<{ items: Passkey[] }>("/api/account/passkeys", { signal }),
  })
}

/** The registration ceremony: options with a one-time challenge from the server, the authenticator's answer, kept under `name`. */
export function useRegisterPasskeyMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (name: string) => {
      const options = await apiFetch<Record<string, unknown>>("/api/account/passkeys/options", { method: "POST" })
      const { startRegistration } = await import("@simplewebauthn/browser")
      let response: unknown
      try {
        response = await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]["optionsJSON"] })
      } catch (error) {
        throw new Error(`No passkey was made (${error instanceof Error ? error.message : "cancelled"}).`, { cause: error })
      }
      return apiFetch<Passkey>("/api/account/passkeys", { method: "POST", body: { name, response } })
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyKeys.all }),
  })
}

export function useRenamePasskeyMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => apiFetch<Passkey>(`/api/account/passkeys/${encodeURIComponent(id)}`, { method: "PATCH", body: { name } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyKeys.all }),
  })
}

export function useRemovePasskeyMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => apiFetch<{ id: string }>(`/api/account/passkeys/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: passkeyKeys.all }),
  })
}
