"use client"

import { useRouter } from "next/navigation"
import { useState } from "react"
import { Button } from "@/components/ui/button"

/** Processes one event again (POST /api/events/{id}/replay; audited) and reloads the log. */
export function ReplayButton({ id, type }: { id: string; type: string }) {
  const router = useRouter()
  const [busy, setBusy] = useState(false)
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null)
  return (
    <div className="flex flex-col items-start gap-1">
      <Button
        variant="secondary"
        size="sm"
        busy={busy}
        aria-label={`Replay event ${type} ${id}`}
        onClick={async () => {
          setBusy(true)
          setSaid(null)
          const res = await fetch(`/api/events/${encodeURIComponent(id)}/replay`, { method: "POST", credentials: "same-origin" }).catch(() => null)
          setBusy(false)
          const body = res ? ((await res.json().catch(() => null)) as { status?: string; detail?: string } | null) : null
          if (res?.ok) {
            setSaid({ ok: true, text: `Replayed: ${body?.status ?? "done"}` })
            router.refresh()
            return
          }
          setSaid({ ok: false, text: body?.detail ?? "The event could not be replayed; try again." })
        }}
      >
        Replay
      </Button>
      {said ? (
        <span role={said.ok ? "status" : "alert"} className={said.ok ? "text-xs text-emerald-800" : "text-xs text-red-800"} data-testid="replay-result">
          {said.text}
        </span>
      ) : null}
    </div>
  )
}
