"use client"

import { useEffect } from "react"
import { Button } from "@/components/ui/button"
import { useHydrated } from "@/components/ui/use-hydrated"

const KEEP_ALIVE_EVERY_MS = 2 * 60 * 1000

/**
 * Sign-out, and the idle timeout's other half: while a person is active, the session is
 * renewed at most every two minutes; after 30 minutes without activity it lapses.
 */
export function SessionControls() {
  const hydrated = useHydrated()
  useEffect(() => {
    let last = Date.now()
    const onActivity = () => {
      const now = Date.now()
      if (now - last < KEEP_ALIVE_EVERY_MS) return
      last = now
      void fetch("/api/auth/session", { credentials: "same-origin", cache: "no-store" }).then(async (res) => {
        const session = (await res.json().catch(() => null)) as { staff?: unknown } | null
        if (!session?.staff) window.location.assign(`/sign-in?callbackUrl=${encodeURIComponent(window.location.pathname)}`)
      })
    }
    const events = ["pointerdown", "keydown"] as const
    for (const name of events) window.addEventListener(name, onActivity, { passive: true })
    return () => {
      for (const name of events) window.removeEventListener(name, onActivity)
    }
  }, [])
  return (
    // next-auth's client (about 10 kB gzipped with its runtime helpers) loads on the click,
    // not with every page. Disabled until hydrated: an earlier click would do nothing.
    <Button
      variant="secondary"
      size="sm"
      disabled={!hydrated}
      onClick={() => void import("next-auth/react").then(({ signOut }) => signOut({ callbackUrl: "/sign-in" }))}
    >
      Sign out
    </Button>
  )
}
