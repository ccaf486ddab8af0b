"use client"

import { useRouter } from "next/navigation"
import { useState } from "react"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useSwitchConversionsApiMutation } from "@/lib/queries/sandbox"
import { CONVERSIONS_APIS, CONVERSIONS_API_LABELS, type ConversionsApi } from "@/lib/schemas/constants"

const HINTS: Record<ConversionsApi, string> = {
  "stablecoin-conversions": "The service's original conversion API (now deprecated by it): CREATED → SETTLED, cancel while pending.",
  orchestrations: "Its replacement: PROCESSING → COMPLETED or FAILED with a reason; no cancel.",
}

/**
 * Which of the service's conversion APIs the conversions desk uses, switchable for a demo.
 * Balances stay (one ledger); records placed through the other API are not listed after a switch.
 */
export function ConversionsApiSwitch({ current, configured }: { current: ConversionsApi; configured: ConversionsApi }) {
  const router = useRouter()
  const [chosen, setChosen] = useState<ConversionsApi>(current)
  const [inUse, setInUse] = useState<ConversionsApi>(current)
  const switchApi = useSwitchConversionsApiMutation()
  const save = () =>
    switchApi.mutate(chosen, {
      onSuccess: (state) => {
        setInUse(state.api)
        // The banner is drawn by the server: draw it again.
        router.refresh()
      },
    })
  return (
    <form
      aria-label="Conversion API"
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault()
        save()
      }}
    >
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-slate-900">The conversions desk places conversions through</legend>
        {CONVERSIONS_APIS.map((api) => (
          <label key={api} className="flex items-start gap-2 text-sm">
            <input type="radio" name="conversions-api" value={api} checked={chosen === api} onChange={() => setChosen(api)} className="mt-1" />
            <span>
              <span className="font-medium">{CONVERSIONS_API_LABELS[api]}</span>
              {api === configured ? <span className="text-xs text-slate-600"> (configured)</span> : null}
              <span className="block text-xs text-slate-600">{HINTS[api]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p className="text-xs text-slate-600">
        Balances stay as they are. Conversions placed through the other API stay with it: the desk lists only the API in use.
      </p>
      <Button type="submit" busy={switchApi.isPending} disabled={chosen === inUse}>
        Switch
      </Button>
      {switchApi.error ? <ProblemAlert error={switchApi.error} /> : null}
      {switchApi.isSuccess && chosen === inUse ? (
        <Alert tone="success" title="Switched">
          <span data-testid="conversions-api-in-use">The desk now uses {CONVERSIONS_API_LABELS[inUse]}.</span>
        </Alert>
      ) : null}
    </form>
  )
}
