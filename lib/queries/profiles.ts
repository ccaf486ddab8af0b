"use client"

import { skipToken, useQuery } from "@tanstack/react-query"
import { useCallback, useSyncExternalStore } from "react"
import { apiFetch } from "@/lib/queries/api"
import { profileKeys } from "@/lib/queries/keys"
import { type QueryOptions, gated } from "@/lib/queries/options"
import type { Balance, Profile } from "@/lib/schemas/records"

// The answers' schemas, loaded with the first answer: pages start without zod.
const profilePageSchema = () => import("@/lib/schemas/records").then((m) => m.profilePageSchema)
const balanceListSchema = () => import("@/lib/schemas/records").then((m) => m.balanceListSchema)

/** Every profile, following the service's cursor (a picker must offer all of them). */
export async function fetchProfiles(signal?: AbortSignal): Promise<Profile[]> {
  const profiles: Profile[] = []
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const query = cursor ? `?limit=1000&page_cursor=${encodeURIComponent(cursor)}` : "?limit=1000"
    const answer = await apiFetch(`/api/profiles${query}`, { signal, schema: profilePageSchema })
    profiles.push(...answer.items)
    cursor = answer.next_page_cursor || undefined
    if (!cursor) break
  }
  return profiles
}

export function useProfilesQuery(options?: QueryOptions<Profile[]>) {
  return useQuery({ staleTime: 60_000, ...options, queryKey: profileKeys.list(), queryFn: ({ signal }) => fetchProfiles(signal) })
}

export function fetchBalances(profileId: string, signal?: AbortSignal): Promise<Balance[]> {
  return apiFetch(`/api/profiles/${encodeURIComponent(profileId)}/balances`, { signal, schema: balanceListSchema }).then(
    (list) => list.items,
  )
}

export function useBalancesQuery(profileId: string | null, options?: QueryOptions<Balance[]>) {
  return useQuery({
    refetchInterval: 5_000,
    ...options,
    queryKey: profileKeys.balances(profileId ?? ""),
    queryFn: profileId ? ({ signal }) => fetchBalances(profileId, signal) : skipToken,
    enabled: gated(Boolean(profileId), options?.enabled),
  })
}

const STORAGE_KEY = "console.profileId"
const listeners = new Set<() => void>()

function subscribe(listener: () => void) {
  listeners.add(listener)
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY) listener()
  }
  window.addEventListener("storage", onStorage)
  return () => {
    listeners.delete(listener)
    window.removeEventListener("storage", onStorage)
  }
}

/** Makes a profile the one the operator works on (every page that picks a profile follows). */
export function chooseProfile(id: string): void {
  window.localStorage.setItem(STORAGE_KEY, id)
  for (const listener of listeners) listener()
}

/**
 * The profile the operator works on, remembered across pages and visits (localStorage).
 * Falls back to the first profile the service lists.
 */
export function useSelectedProfile(): {
  profileId: string | null
  profiles: Profile[]
  setProfileId: (id: string) => void
  isLoading: boolean
  error: unknown
} {
  const profiles = useProfilesQuery()
  const stored = useSyncExternalStore(
    subscribe,
    () => window.localStorage.getItem(STORAGE_KEY),
    () => null,
  )
  const list = profiles.data ?? []
  const profileId = list.find((p) => p.id === stored)?.id ?? list[0]?.id ?? null
  const setProfileId = useCallback((id: string) => chooseProfile(id), [])
  return { profileId, profiles: list, setProfileId, isLoading: profiles.isLoading, error: profiles.error }
}
