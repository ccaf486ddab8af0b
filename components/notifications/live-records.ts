"use client"

import { useEffect } from "react"

/**
 * The records and requests a view on the current page follows live (polling until they
 * are final), so that a notification about one of them is not repeated as a toast.
 */
const shown = new Map<string, number>()

export function isShownLive(id: string): boolean {
  return (shown.get(id) ?? 0) > 0
}

/** Marks the ids as followed live while the calling component is mounted. */
export function useShownLive(...ids: (string | null | undefined)[]): void {
  const key = ids.filter((id): id is string => Boolean(id)).join("\n")
  useEffect(() => {
    const list = key ? key.split("\n") : []
    for (const id of list) shown.set(id, (shown.get(id) ?? 0) + 1)
    return () => {
      for (const id of list) {
        const left = (shown.get(id) ?? 1) - 1
        if (left > 0) shown.set(id, left)
        else shown.delete(id)
      }
    }
  }, [key])
}
