"use client"

import { useSyncExternalStore } from "react"

const noSubscription = () => () => {}

/**
 * True once React has hydrated this part of the page (false in the server's HTML). A button
 * whose work is all in its click handler stays disabled until then: a click on the server's
 * HTML before the page's script has run would do nothing and be lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  )
}
