"use client"

import { useRouter } from "next/navigation"
import { useState } from "react"
import { Button } from "@/components/ui/button"

/** Ends one session (DELETE /api/admin/sessions/{id}) and reloads the list. */
export function EndSessionButton({ id, who }: { id: string; who: string }) {
  const router = useRouter()
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  return (
    <div className="flex flex-col items-start gap-1">
      <Button
        variant="danger"
        size="sm"
        busy={busy}
        aria-label={`End session of ${who}`}
        onClick={async () => {
          setBusy(true)
          setFailure(null)
          const res = await fetch(`/api/admin/sessions/${encodeURIComponent(id)}`, { method: "DELETE", credentials: "same-origin" }).catch(() => null)
          setBusy(false)
          if (res && (res.ok || res.status === 404)) {
            router.refresh()
            return
          }
          const problem = res ? ((await res.json().catch(() => null)) as { detail?: string } | null) : null
          setFailure(problem?.detail ?? "The session could not be ended; try again.")
        }}
      >
        End session
      </Button>
      {failure ? (
        <span role="alert" className="text-xs text-red-800">
          {failure}
        </span>
      ) : null}
    </div>
  )
}
