"use client"

import { useRouter } from "next/navigation"
import { useState } from "react"
import { Button } from "@/components/ui/button"
import { ApiProblemError } from "@/lib/queries/api"
import { withStepUp } from "@/lib/queries/step-up"
import type { Problem } from "@/lib/schemas/problem"

/** DELETE /api/admin/sessions/{id}, with a passkey assertion when step-up asks for one; a refusal is thrown as the problem it is. */
async function endSession(id: string, stepUp?: unknown): Promise<void> {
  const res = await fetch(`/api/admin/sessions/${encodeURIComponent(id)}`, {
    method: "DELETE",
    credentials: "same-origin",
    ...(stepUp === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify({ step_up: stepUp }) }),
  })
  if (res.ok || res.status === 404) return
  const problem = (await res.json().catch(() => null)) as Problem | null
  throw new ApiProblemError(problem ?? { type: "about:blank", title: res.statusText || "Error", status: res.status })
}

/**
 * Ends one session and reloads the list. Someone else's, under STEP_UP=webauthn, needs the
 * admin's passkey: the server asks, the browser's passkey dialog signs, the end goes again.
 */
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
          try {
            await withStepUp((stepUp) => endSession(id, stepUp))
            router.refresh()
          } catch (error) {
            setFailure(error instanceof ApiProblemError ? (error.problem.detail ?? error.message) : error instanceof Error ? error.message : "The session could not be ended; try again.")
          } finally {
            setBusy(false)
          }
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
