"use client"

import { CONVERSION_DECIMALS } from "@/lib/format"
import { useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import { IdChip } from "@/components/ui/id-chip"
import { describeError } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { useCancelConversionMutation } from "@/lib/queries/conversions"
import { conversionKeys, intentKeys, profileKeys } from "@/lib/queries/keys"
import { existingRecord } from "@/lib/queries/submission"
import { type Conversion, conversionSchema } from "@/lib/schemas/records"

function problemStatus(error: unknown): number | null {
  return error instanceof ApiProblemError ? error.status : null
}

/**
 * Cancel for a conversion while it is CREATED (on its page, and on the outcome card that
 * says it can still be cancelled): a confirm dialog, then the answer. A cancel the service
 * refuses (it settled in the meantime) shows the service's answer and the fresh record.
 */
export function CancelConversion({ conversion, onAnswered }: { conversion: Conversion; onAnswered?: () => void }) {
  const cancel = useCancelConversionMutation()
  const queryClient = useQueryClient()
  const [confirming, setConfirming] = useState<Conversion | null>(null)
  const [cancelError, setCancelError] = useState<unknown>(null)
  const [cancelledNow, setCancelledNow] = useState(false)

  function confirmCancel() {
    if (!confirming || cancel.isPending) return
    cancel.mutate(confirming.id, {
      onSuccess: () => {
        setConfirming(null)
        setCancelError(null)
        setCancelledNow(true)
        onAnswered?.()
      },
      onError: (error) => {
        setConfirming(null)
        setCancelError(error)
        onAnswered?.()
        // A refused cancel carries the fresh record.
        const fresh = existingRecord(error, conversionSchema)
        if (fresh) queryClient.setQueryData(conversionKeys.detail(fresh.id), fresh)
      },
      onSettled: () => {
        void queryClient.invalidateQueries({ queryKey: conversionKeys.detail(conversion.id) })
        // The record's story gains the cancel (and who asked for it).
        void queryClient.invalidateQueries({ queryKey: intentKeys.ofRecord(conversion.id) })
        if (conversion.profile_id) void queryClient.invalidateQueries({ queryKey: profileKeys.balances(conversion.profile_id) })
      },
    })
  }

  const refusal = cancelError ? describeError(cancelError) : null
  return (
    <>
      {cancelledNow && conversion.status === "CANCELLED" ? (
        <Alert tone="success" title="Conversion cancelled">
          <Amount value={conversion.amount} asset={conversion.source_asset} places={CONVERSION_DECIMALS} /> went back to the profile&apos;s available balance.
        </Alert>
      ) : null}
      {refusal ? (
        <Alert tone="danger" title={problemStatus(cancelError) === 409 ? "Not cancelled: it is no longer pending" : `Not cancelled: ${refusal.title}`}>
          <p data-testid="cancel-problem">{refusal.detail}</p>
          {problemStatus(cancelError) === 409 ? <p className="mt-1">The record is fresh from the service.</p> : null}
        </Alert>
      ) : null}
      {conversion.status === "CREATED" ? (
        <div>
          <Button
            variant="danger"
            onClick={() => {
              setCancelError(null)
              setConfirming(conversion)
            }}
          >
            Cancel conversion
          </Button>
        </div>
      ) : null}
      <Dialog
        open={confirming !== null}
        onClose={() => {
          if (!cancel.isPending) setConfirming(null)
        }}
        title="Cancel this conversion?"
        footer={
          <>
            <Button variant="secondary" held={cancel.isPending} onClick={() => setConfirming(null)}>
              Keep it
            </Button>
            <Button variant="danger" busy={cancel.isPending} onClick={confirmCancel}>
              Cancel conversion
            </Button>
          </>
        }
      >
        {confirming ? (
          <div className="space-y-3 text-sm">
            <p>
              <Amount value={confirming.amount} asset={confirming.source_asset} places={CONVERSION_DECIMALS} /> → {confirming.target_asset} will not settle, and the{" "}
              {confirming.source_asset} goes back to the profile&apos;s available balance.
            </p>
            <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
              <dt className="font-medium text-slate-600">Conversion id</dt>
              <dd className="min-w-0">
                <IdChip value={confirming.id} label="conversion id" full />
              </dd>
              <dt className="font-medium text-slate-600">ref_id</dt>
              <dd className="min-w-0">
                <IdChip value={confirming.ref_id} label="ref_id" full />
              </dd>
            </dl>
            {conversion.status !== "CREATED" ? (
              <Alert tone="warning" title={`It is now ${conversion.status}`}>
                The service will most likely refuse to cancel it.
              </Alert>
            ) : null}
          </div>
        ) : null}
      </Dialog>
    </>
  )
}
