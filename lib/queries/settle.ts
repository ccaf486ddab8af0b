"use client"

import { type QueryKey, useQueryClient } from "@tanstack/react-query"
import { useEffect, useRef } from "react"
import { isTerminalStatus } from "@/lib/schemas/constants"

/**
 * When a watched record settles (or ends otherwise), what it changed is read again at
 * once: the queries under `keys` (the profile's balances, the record lists). Not on first
 * sight of a record that had already ended: nothing changed since those were read.
 */
export function useRefreshWhenEnded(status: string | undefined, keys: readonly QueryKey[]): void {
  const queryClient = useQueryClient()
  const wasOpen = useRef(false)
  const latestKeys = useRef(keys)
  useEffect(() => {
    latestKeys.current = keys
  })
  useEffect(() => {
    if (!status) return
    if (!isTerminalStatus(status)) {
      wasOpen.current = true
      return
    }
    if (!wasOpen.current) return
    wasOpen.current = false
    for (const queryKey of latestKeys.current) void queryClient.invalidateQueries({ queryKey })
  }, [status, queryClient])
}
